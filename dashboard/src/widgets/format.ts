// How figures read on the page. Unknown is always written as such, never as 0 or an empty cell.
export const UNKNOWN = 'unknown';

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

export const count = (n: number): string => integer.format(n);

// Formatters are costly to create: one per precision, made once (a render formats thousands of figures).
const byDigits = [0, 1, 2].map((d) => new Intl.NumberFormat('en-US', { maximumFractionDigits: d }));

export const num = (v: number | null, digits = 0): string =>
  v === null ? UNKNOWN : byDigits[Math.min(2, digits)]!.format(v);

/** A median of whole counts: whole, or halfway between two ("8.5"), never rounded to a count no run had. */
export const countMedian = (v: number): string => num(v, Number.isInteger(v) ? 0 : 1);

export const big = (v: number | null): string =>
  v === null ? UNKNOWN : v >= 10_000 ? compact.format(v) : integer.format(v);

/** An axis tick's number, short: 800, 2.5K, 10K. */
export const shortNumber = (v: number): string => (v >= 1000 ? compact.format(v) : byDigits[1]!.format(v));

export const percent = (rate: number | null): string =>
  rate === null ? '–' : `${(rate * 100).toFixed(rate > 0 && rate < 0.1 ? 1 : 0)}%`;

/** A duration in seconds, in the unit a person would use. */
export function duration(seconds: number | null): string {
  if (seconds === null) return UNKNOWN;
  if (seconds < 90) return `${num(seconds, seconds < 10 ? 1 : 0)} s`;
  if (seconds < 5400) return `${num(seconds / 60, seconds < 600 ? 1 : 0)} min`;
  if (seconds < 172_800) return `${num(seconds / 3600, 1)} h`;
  return `${num(seconds / 86_400, 1)} d`;
}

export const hours = (h: number | null): string => duration(h === null ? null : h * 3600);

export function instant(iso: string | null): string {
  if (!iso) return UNKNOWN;
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d
        .toISOString()
        .replace('T', ' ')
        .replace(/:\d\d\.\d+Z$/, ' UTC');
}

export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

/** A figure with its unit: `6,327,020 tokens`, `16.2 min`. */
export const withUnit = (v: number, unit: string, digits = 0): string => `${num(v, digits)} ${unit}`;

/** A count with its noun: "1 file", "3 files". */
export const counted = (v: number, one: string, many = `${one}s`): string => withUnit(v, v === 1 ? one : many);

/** The SHA-256 of no bytes: the patch hash of a run that sent no patch, or an empty one. */
export const NO_PATCH_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const UNITS_OF_TIME: [number, string][] = [
  [86_400, 'd'],
  [3600, 'h'],
  [60, 'min'],
  [1, 's'],
];

/** An axis tick's duration in the largest unit it reaches: 1 min, 10 min, 1 h, 6 h, 1 d (never "60 s" or "24 h"). */
export function durationTick(seconds: number): string {
  const [size, unit] = UNITS_OF_TIME.find(([s]) => seconds >= s) ?? UNITS_OF_TIME[UNITS_OF_TIME.length - 1]!;
  return `${num(seconds / size, 1)} ${unit}`;
}

/** Dollars with the digits that tell small figures apart: $0.0043, $0.0125, $0.13, $10.66, $1,234. */
export const usd = (v: number): string =>
  v === 0
    ? '$0'
    : v < 0.0001
      ? '<$0.0001'
      : v < 1
        ? `$${cents(v.toPrecision(3))}`
        : v < 100
          ? `$${v.toFixed(2)}`
          : `$${Math.round(v).toLocaleString('en-US')}`;
/** "0.100" → "0.10", "0.00500" → "0.005": three significant digits, never fewer than cents. */
const cents = (digits: string) =>
  digits.replace(/0+$/, '').replace(/\.(\d?)$/, (_, d: string) => `.${d.padEnd(2, '0')}`);
