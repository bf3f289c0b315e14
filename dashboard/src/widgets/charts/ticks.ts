// Where axis ticks go, so every axis of every chart carries labelled values with their unit: round
// numbers on linear axes, round durations (1 min, 10 min, 1 h, 6 h, 1 d, …) on time axes, and on log axes
// every tick that fits, not only the powers of ten.

export interface Tick {
  /** Position along the axis, 0 to 1. */
  at: number;
  label: string;
}

export interface Axis {
  ticks: Tick[];
  /** What the axis measures, with its unit. */
  title: string;
}

/** Round durations a person reads at a glance, in seconds: for log axes. */
export const DURATION_TICKS = [1, 10, 60, 600, 3600, 6 * 3600, 86_400, 7 * 86_400, 30 * 86_400, 365 * 86_400];

/** Round linear steps for durations in seconds: 1, 2, 5, 10, 15, 30 s, 1 … 30 min, 1 … 12 h, 1, 2, 7 d. */
const DURATION_STEPS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800,
];

/** Linear ticks from 0 to a round value at or above `max`, at most `most` of them after 0. */
export function linearTicks(max: number, kind: 'number' | 'duration' = 'number', most = 5): number[] {
  const top = max > 0 ? max : 1;
  const step =
    kind === 'duration' ? (DURATION_STEPS.find((s) => top / s <= most) ?? niceStep(top / most)) : niceStep(top / most);
  const ticks = [0];
  while (ticks[ticks.length - 1]! < top - 1e-9) ticks.push(ticks.length * step);
  return ticks;
}

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above `raw`. */
function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw - 1e-12)!;
}

/** A linear axis from 0 to the last tick: `scale` turns a value into a position along it. */
export function linearAxis(
  max: number,
  title: string,
  format: (v: number) => string,
  kind: 'number' | 'duration' = 'number',
): Axis & { scale(v: number): number } {
  const values = linearTicks(max, kind);
  const top = values[values.length - 1]!;
  return { title, ticks: values.map((v) => ({ at: v / top, label: format(v) })), scale: (v) => v / top };
}

/** A log axis over the round durations that bracket every value (in seconds). */
export function logDurationAxis(
  values: number[],
  title: string,
  format: (seconds: number) => string,
): Axis & { scale(v: number): number } {
  const positive = values.filter((v) => v > 0);
  const lowest = Math.min(...positive, 60);
  const highest = Math.max(...positive, 3600);
  const lo = [...DURATION_TICKS].reverse().find((t) => t <= lowest) ?? DURATION_TICKS[0]!;
  const hi = DURATION_TICKS.find((t) => t >= highest) ?? highest;
  const span = Math.log(hi / lo);
  const scale = (v: number) => Math.max(0, Math.min(1, Math.log(v / lo) / span));
  return {
    title,
    scale,
    ticks: DURATION_TICKS.filter((t) => t >= lo && t <= hi).map((t) => ({ at: scale(t), label: format(t) })),
  };
}

/** Ticks at 1, 2 and 5 times each power of ten in range, or only the powers when the range spans many decades. */
export function logSplits(min: number, max: number): number[] {
  if (!(min > 0) || !(max > min)) return [];
  const decades = Math.log10(max / min);
  const steps = decades > 4 ? [1] : decades > 2 ? [1, 3] : [1, 2, 5];
  const splits: number[] = [];
  for (let p = Math.floor(Math.log10(min)); p <= Math.ceil(Math.log10(max)); p++) {
    for (const s of steps) {
      const v = s * 10 ** p;
      if (v >= min && v <= max) splits.push(v);
    }
  }
  return splits;
}

/** The round durations in [min, max]; when fewer than two fit, the 1-2-5 splits of the range in seconds. */
export function durationSplits(min: number, max: number): number[] {
  const round = DURATION_TICKS.filter((t) => t >= min && t <= max);
  return round.length >= 2 ? round : logSplits(min, max);
}
