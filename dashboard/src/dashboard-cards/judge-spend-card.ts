// The judge spend card (docs/contract.md §5–§6): what judging cost per day against the daily cap (from `/budget`) and
// per configuration (from `/stats`). A day or a configuration whose spend is not all known reads "unknown".
import type { BudgetBody, StatsBody } from '#analytics/contract.ts';
import type { Card, CardCsv } from './card.ts';
import { barList, type BarRow } from '../widgets/charts/bars.ts';
import { el, fill, nameText } from '../widgets/dom.ts';
import { count, percent, UNKNOWN, usd } from '../widgets/format.ts';
import { MODEL_COLOUR } from '../widgets/palette.ts';

/** What the cost cards read, from the read API (run prices are in the configuration the page never sees). */
export interface CostData {
  stats: StatsBody | null;
  budget: BudgetBody | null;
  /** Why the figures could not be read, in the API's own sentence. */
  error: string | null;
}

/** Days of spend listed, newest first. */
const DAYS_LISTED = 14;

/** "Reading…", or the API's refusal: true when there is nothing more to draw. */
export function pendingOrFailed(body: HTMLElement, data: CostData | null): boolean {
  if (!data || (!data.stats && !data.error)) {
    fill(body, el('p', { class: 'muted' }, 'Reading the cost figures…'));
    return true;
  }
  if (data.error) {
    fill(body, el('p', { class: 'error', role: 'alert' }, `The cost figures could not be read: ${data.error}`));
    return true;
  }
  return false;
}

export function renderJudgeSpend(
  c: Pick<Card, 'body' | 'foot'>,
  data: CostData | null,
  label: (g: { model: string; harnessVersion: string }) => string,
): CardCsv | null {
  if (pendingOrFailed(c.body, data)) return null;
  const groups = data!.stats!.groups;
  const csv: CardCsv = () => ({
    columns: ['day', 'judgeCalls', 'cap', 'judgeCostUsd'],
    rows: (data!.budget?.days ?? []).map((d) => [d.day, d.calls, d.cap, d.costUsd]),
  });
  fill(
    c.body,
    el('h3', {}, 'Judge spend per day against the cap'),
    spendPerDay(data!.budget),
    el('h3', {}, 'Judge spend per configuration'),
    el(
      'table',
      { class: 'figures cost-table', id: 'judge-cost-table' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['Configuration', 'Runs', 'Judge cost'].map((h, k) =>
            el('th', { scope: 'col', class: k ? 'num' : 'text' }, h),
          ),
        ),
      ),
      el(
        'tbody',
        {},
        ...groups.map((g) =>
          el(
            'tr',
            { 'data-model': g.model },
            el('th', { scope: 'row', class: 'text', title: `${g.model} · ${g.harnessVersion}` }, nameText(label(g))),
            el('td', { class: 'num' }, count(g.runs)),
            g.judgeCostUsd === null
              ? el(
                  'td',
                  { class: 'num unknown', title: 'unknown: a call had no price, or predates cost recording' },
                  UNKNOWN,
                )
              : el('td', { class: 'num' }, usd(g.judgeCostUsd)),
          ),
        ),
      ),
    ),
  );
  fill(
    c.foot,
    'What the judge’s calls cost at the configured price of the judge model. The ' +
      'configurations follow the model, tier, wave and harness filters; the days do not.',
  );
  return csv;
}

function spendPerDay(budget: BudgetBody | null): HTMLElement {
  if (!budget) return el('p', { class: 'muted' }, 'No budget figures.');
  const days = budget.days.filter((d) => d.calls > 0).reverse();
  const window = budget.days.length;
  if (!days.length)
    return el('p', { class: 'muted', id: 'spend-none' }, `No judge calls in the last ${count(window)} days.`);
  const costs = budget.days.map((d) => d.costUsd);
  const total = costs.some((c) => c === null) ? null : costs.reduce<number>((s, c) => s + c!, 0);
  const calls = budget.days.reduce((s, d) => s + d.calls, 0);
  const rows = days.slice(0, DAYS_LISTED).map((d): BarRow => ({
    label: d.day,
    lanes: [
      {
        segments: [
          {
            from: 0,
            width: d.cap ? Math.min(1, d.calls / d.cap) : 0,
            colour: MODEL_COLOUR,
            title: `${d.day}: ${count(d.calls)} of ${count(d.cap)} judge calls; ${d.costUsd === null ? UNKNOWN : usd(d.costUsd)}`,
          },
        ],
      },
    ],
    value: d.costUsd === null ? UNKNOWN : usd(d.costUsd),
    note: `${count(d.calls)} of ${count(d.cap)} calls (${percent(d.cap ? d.calls / d.cap : null)} of the daily cap)`,
    unknown: d.costUsd === null,
  }));
  return el(
    'div',
    { id: 'spend-per-day' },
    el(
      'p',
      { class: 'spend-total' },
      `Last ${count(window)} days: ${
        total === null ? 'spend unknown (a day’s spend was ' + 'not recorded, or a call had no price)' : usd(total)
      } over ${count(calls)} judge calls.`,
    ),
    barList(rows, {
      title: 'judge calls, share of the daily cap',
      ticks: [0, 0.25, 0.5, 0.75, 1].map((at) => ({ at, label: percent(at) })),
    }),
    days.length > DAYS_LISTED &&
      el('p', { class: 'muted' }, `${count(days.length - DAYS_LISTED)} earlier days with calls not listed.`),
  );
}
