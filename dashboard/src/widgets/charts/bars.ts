// Horizontal bar lists in plain DOM: one row per (model, harness version) with its name as text, so
// long model names stay readable and every bar is reachable by a screen reader and a tooltip. Every list
// has an axis under it (ticks with values and units, gridlines through the tracks), so a bar's length can
// be read, not only compared.
import { el, nameText } from '../dom.ts';
import type { Axis } from './ticks.ts';

export interface Segment {
  /** Start and width as fractions of the track. */
  from: number;
  width: number;
  colour: string;
  title: string;
}

/** A value drawn as a dot, for a scale where a bar's length from an arbitrary floor would mislead. */
export interface Dot {
  at: number;
  colour: string;
  title: string;
  /** A second shape, so two dots differ by more than colour. */
  diamond?: boolean;
}

export interface Lane {
  segments: Segment[];
  /** A thin range drawn over the lane, e.g. the interquartile range. */
  range?: { from: number; to: number; title: string };
  /** A confidence interval drawn as a whisker with end caps over the lane. */
  interval?: { from: number; to: number; title: string };
  dots?: Dot[];
}

export interface BarRow {
  label: string;
  lanes: Lane[];
  value: string;
  /** Shown after the value, muted: the denominator and what was left out. */
  note?: string;
  unknown?: boolean;
}

export function barList(rows: BarRow[], axis: Axis, className = ''): HTMLElement {
  const grid = gridlines(axis);
  return el(
    'div',
    { class: `bars ${className}` },
    el(
      'div',
      { role: 'list', class: 'bar-rows' },
      ...rows.map((row) =>
        el(
          'div',
          { class: `bar-row${row.unknown ? ' is-unknown' : ''}`, role: 'listitem' },
          el('span', { class: 'bar-label', title: row.label }, nameText(row.label)),
          el(
            'span',
            { class: 'bar-track', style: grid },
            ...row.lanes.map((lane) =>
              el(
                'span',
                { class: 'bar-lane' },
                ...lane.segments.map((s) =>
                  el('span', {
                    class: 'bar-seg',
                    title: s.title,
                    style: `left:${pct(s.from)};width:${pct(s.width)};background:${s.colour}`,
                  }),
                ),
                lane.range &&
                  el('span', {
                    class: 'bar-range',
                    title: lane.range.title,
                    style: `left:${pct(lane.range.from)};width:${pct(lane.range.to - lane.range.from)}`,
                  }),
                lane.interval &&
                  el('span', {
                    class: 'bar-ci',
                    title: lane.interval.title,
                    style: `left:${pct(lane.interval.from)};width:${pct(lane.interval.to - lane.interval.from)}`,
                  }),
                lane.dots && lane.dots.length > 1 && el('span', { class: 'bar-link', style: link(lane.dots) }),
                ...(lane.dots ?? []).map((d) =>
                  el('span', {
                    class: `bar-dot${d.diamond ? ' diamond' : ''}`,
                    title: d.title,
                    style: `left:${pct(d.at)};background:${d.colour}`,
                  }),
                ),
              ),
            ),
          ),
          el('span', { class: 'bar-value' }, row.value),
          el('span', { class: 'bar-note' }, row.note ?? ''),
        ),
      ),
    ),
    axisRow(axis),
  );
}

function axisRow(axis: Axis): HTMLElement {
  return el(
    'div',
    { class: 'bar-axis' },
    el(
      'span',
      { class: 'bar-axis-ticks' },
      ...axis.ticks.map((t, k) =>
        el(
          'span',
          {
            class: `bar-tick${k === 0 ? ' first' : k === axis.ticks.length - 1 ? ' last' : ''}`,
            style: `left:${pct(t.at)}`,
          },
          t.label,
        ),
      ),
    ),
    el('span', { class: 'bar-axis-title' }, axis.title),
  );
}

/** Gridlines at the ticks, painted as backgrounds of the track: no extra nodes per row. */
function gridlines(axis: Axis): string {
  const lines = axis.ticks
    .filter((t) => t.at > 0 && t.at < 1)
    .map((t) => `linear-gradient(#c9ced6,#c9ced6) ${pct(t.at)} 0/1px 100% no-repeat`);
  return lines.length ? `background:${[...lines, '#f1f2f4'].join(',')}` : '';
}

function link(dots: Dot[]): string {
  const ats = dots.map((d) => d.at);
  const from = Math.min(...ats);
  return `left:${pct(from)};width:${pct(Math.max(...ats) - from)}`;
}

const pct = (f: number) => `${(Math.max(0, Math.min(1, f)) * 100).toFixed(2)}%`;

/** Swatches with their names; `shape` matches a dot plot's marks. */
export function legend(items: { label: string; colour: string; shape?: 'dot' | 'diamond' }[]): HTMLElement {
  return el(
    'div',
    { class: 'legend' },
    ...items.map((i) =>
      el(
        'span',
        { class: 'legend-item' },
        el('span', { class: `swatch${i.shape ? ` ${i.shape}` : ''}`, style: `background:${i.colour}` }),
        i.label,
      ),
    ),
  );
}
