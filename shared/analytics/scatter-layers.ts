// The scatter chart's points: wall time against completion tokens, one layer per colour.
import type { RunTable } from './run-table.ts';

export interface ScatterLayer {
  /**
   * completionTokens and wallSeconds of the runs where both are known, as float32: positions to plot,
   * half the fresh memory of a million points.
   */
  x: Float32Array;
  y: Float32Array;
  /** Runs left off because a value is unknown (or, on log axes, not positive). */
  leftOff: number;
}

/** Wall time against completion tokens, split into layers by `layerOf` (e.g. the verdict code). */
export function scatterLayers(
  table: RunTable,
  selection: Uint32Array,
  layerCount: number,
  layerOf: (i: number) => number,
  positiveOnly: boolean,
): ScatterLayer[] {
  // Each row's layer is asked twice (to size the layers, then to fill them) rather than kept: a cheap call
  // costs less than a fresh array as long as the selection.
  const sizes = new Uint32Array(layerCount);
  for (let s = 0; s < selection.length; s++) sizes[layerOf(selection[s]!)]!++;
  const layers = Array.from(sizes, (n) => ({ x: new Float32Array(n), y: new Float32Array(n), leftOff: 0, n: 0 }));
  const { completionTokens, wallSeconds } = table.numbers;
  for (let s = 0; s < selection.length; s++) {
    const i = selection[s]!;
    const layer = layers[layerOf(i)]!;
    const cx = completionTokens[i]!;
    const cy = wallSeconds[i]!;
    if (Number.isNaN(cx) || Number.isNaN(cy) || (positiveOnly && (cx <= 0 || cy <= 0))) {
      layer.leftOff++;
      continue;
    }
    layer.x[layer.n] = cx;
    layer.y[layer.n++] = cy;
  }
  return layers.map((l) => ({ x: l.x.subarray(0, l.n), y: l.y.subarray(0, l.n), leftOff: l.leftOff }));
}
