// Medians and quartiles of figures, by selection rather than a full sort: a filter change recomputes a dozen
// medians over up to 100k runs. Unknown values (NaN) are left out, and the count of known values travels
// with each median. Browser-safe; no dependencies.
import type { FigureColumn } from './run-table.ts';

export interface MedianFigure {
  median: number | null;
  p25: number | null;
  p75: number | null;
  /** Values that were known, out of n runs. */
  known: number;
  n: number;
}

/**
 * The values a median is selected from are gathered into one buffer that every median reuses: the
 * figures are plain numbers, so nothing outlives the call that filled it, and fresh memory is dear (the
 * first write to each page of a new million-value array costs more than selecting its quartiles).
 */
let gatherBuffer = new Float64Array(0);
export function gatherRoom(n: number): Float64Array {
  if (gatherBuffer.length < n) gatherBuffer = new Float64Array(Math.max(n, Math.floor(gatherBuffer.length * 1.5)));
  return gatherBuffer;
}

/**
 * Median and quartiles of the known values (NaN is unknown and skipped); `n` counts all values offered.
 * Quartiles interpolate linearly between order statistics, found by selection rather than a full sort:
 * a filter change recomputes a dozen medians over up to 100k runs.
 */
export function medianOf(values: ArrayLike<number>): MedianFigure {
  const known = gatherRoom(values.length);
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isNaN(v)) known[k++] = v;
  }
  return quartilesOfKnown(known.subarray(0, k), values.length);
}

/** medianOf the values of `rows` in `source`, gathered and filtered in one pass (a million-run group's medians are mostly this copy). */
export function medianOfRows(source: FigureColumn, rows: Uint32Array): MedianFigure {
  const known = gatherRoom(rows.length);
  let k = 0;
  for (let r = 0; r < rows.length; r++) {
    const v = source[rows[r]!]!;
    if (!Number.isNaN(v)) known[k++] = v;
  }
  return quartilesOfKnown(known.subarray(0, k), rows.length);
}

/** Median and quartiles of `a` (no NaN; rearranged in place), `n` values having been offered. */
export function quartilesOfKnown(a: Float64Array, n: number): MedianFigure {
  const median = medianOfKnown(a);
  if (median === null) return { median: null, p25: null, p75: null, known: 0, n };
  // The median's selection split a at its lower order statistic, smaller values left and larger ones
  // right: the quartiles are selected within their own side without disturbing it.
  const k = a.length;
  const mid = (k - 1) >> 1;
  return { median, p25: quantile(a, 0.25, mid, 0, mid - 1), p75: quantile(a, 0.75, mid, mid + 1, k - 1), known: k, n };
}

/** The median alone of `a` (no NaN; rearranged in place: see quartilesOfKnown), null when empty. */
export function medianOfKnown(a: Float64Array): number | null {
  if (!a.length) return null;
  const mid = (a.length - 1) >> 1;
  select(a, mid, 0, a.length - 1);
  return quantile(a, 0.5, mid, 0, a.length - 1);
}

/**
 * The q-quantile of `a` (no NaN; rearranged in place), interpolating linearly between order statistics
 * (Hyndman & Fan's type 7, as the medians and quartiles): one selection, then the least value above it.
 */
export function quantileOfKnown(a: Float64Array, q: number): number {
  const at = (a.length - 1) * q;
  const lo = Math.floor(at);
  const low = select(a, lo, 0, a.length - 1);
  if (at === lo) return low;
  let high = Infinity;
  for (let i = lo + 1; i < a.length; i++) if (a[i]! < high) high = a[i]!;
  return low + (high - low) * (at - lo);
}

/** The q-quantile of `a`, whose lower order statistic is a[mid] or lies within [left, right]. */
function quantile(a: Float64Array, q: number, mid: number, left: number, right: number): number {
  const at = (a.length - 1) * q;
  const lo = Math.floor(at);
  const low = lo === mid ? a[mid]! : select(a, lo, left, right);
  if (at === lo) return low;
  // The next order statistic is the least value right of lo: within its side, or the value that bounds
  // that side (everything beyond it is at least as large).
  const end = lo === mid ? a.length - 1 : Math.min(right + 1, a.length - 1);
  let high = Infinity;
  for (let i = lo + 1; i <= end; i++) if (a[i]! < high) high = a[i]!;
  return low + (high - low) * (at - lo);
}

/** Above this many values, select first narrows the range to a sample's neighbourhood of k (Floyd–Rivest). */
const SAMPLE_ABOVE = 600;

/**
 * Rearranges a[left..right] so that a[k] holds the k-th smallest value, smaller ones left of it and larger
 * ones right. Floyd and Rivest's selection: a large range is first narrowed by selecting k within a sample
 * around it, whose value then partitions the range close to k, so a million values take about 1.5 passes
 * where quickselect's median of three takes 3.4.
 */
function select(a: Float64Array, k: number, left: number, right: number): number {
  while (right > left) {
    if (right - left > SAMPLE_ABOVE) {
      const n = right - left + 1;
      const i = k - left + 1;
      const z = Math.log(n);
      const s = 0.5 * Math.exp((2 * z) / 3);
      const sd = 0.5 * Math.sqrt((z * s * (n - s)) / n) * (i < n / 2 ? -1 : 1);
      select(
        a,
        k,
        Math.max(left, Math.floor(k - (i * s) / n + sd)),
        Math.min(right, Math.floor(k + ((n - i) * s) / n + sd)),
      );
    }
    // Partition around t = a[k], kept at one end meanwhile; then narrow to the side that holds k.
    const t = a[k]!;
    let i = left;
    let j = right;
    swap(a, left, k);
    if (a[right]! > t) swap(a, right, left);
    while (i < j) {
      swap(a, i++, j--);
      while (a[i]! < t) i++;
      while (a[j]! > t) j--;
    }
    if (a[left] === t) swap(a, left, j);
    else swap(a, ++j, right);
    if (j <= k) left = j + 1;
    if (k <= j) right = j - 1;
  }
  return a[k]!;
}

function swap(a: Float64Array, i: number, j: number) {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}
