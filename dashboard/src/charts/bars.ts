// Horizontal bar lists in plain DOM: one row per (model, harness version) with its name as text, so
// long model names stay readable and every bar is reachable by a screen reader and a tooltip.
import { el } from '../dom.ts';

export interface Segment {
  /** Start and width as fractions of the track. */
  from: number;
  width: number;
  colour: string;
  title: string;
}

export interface Lane {
  segments: Segment[];
  /** A thin range drawn over the lane, e.g. the interquartile range. */
  range?: { from: number; to: number; title: string };
}

export interface BarRow {
  label: string;
  lanes: Lane[];
  value: string;
  /** Shown after the value, muted: the denominator and what was left out. */
  note?: string;
  unknown?: boolean;
  /** A row the reader can open (the matrix and table use the same keys). */
  key?: string;
}

export function barList(rows: BarRow[], className = ''): HTMLElement {
  return el(
    'div',
    { class: `bars ${className}`, role: 'list' },
    ...rows.map((row) =>
      el(
        'div',
        { class: `bar-row${row.unknown ? ' is-unknown' : ''}`, role: 'listitem', 'data-key': row.key },
        el('span', { class: 'bar-label', title: row.label }, row.label),
        el(
          'span',
          { class: 'bar-track' },
          ...row.lanes.map((lane) =>
            el(
              'span',
              { class: 'bar-lane' },
              ...lane.segments.map((s) =>
                el('span', { class: 'bar-seg', title: s.title, style: `left:${pct(s.from)};width:${pct(s.width)};background:${s.colour}` }),
              ),
              lane.range && el('span', { class: 'bar-range', title: lane.range.title, style: `left:${pct(lane.range.from)};width:${pct(lane.range.to - lane.range.from)}` }),
            ),
          ),
        ),
        el('span', { class: 'bar-value' }, row.value),
        el('span', { class: 'bar-note' }, row.note ?? ''),
      ),
    ),
  );
}

const pct = (f: number) => `${(Math.max(0, Math.min(1, f)) * 100).toFixed(2)}%`;

/** Fraction of a track for a value on a log scale between lo and hi. */
export function logFraction(value: number, lo: number, hi: number): number {
  if (value <= lo) return 0.01;
  return Math.max(0.01, Math.log(value / lo) / Math.log(hi / lo));
}

export function legend(items: { label: string; colour: string }[]): HTMLElement {
  return el(
    'div',
    { class: 'legend' },
    ...items.map((i) => el('span', { class: 'legend-item' }, el('span', { class: 'swatch', style: `background:${i.colour}` }), i.label)),
  );
}
