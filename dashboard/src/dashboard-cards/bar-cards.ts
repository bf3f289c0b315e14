// The dashboard's cards of bars, one row per group: the verdict mix, the resolve rate on both outcomes (the one in
// view first) with their Wilson intervals, the medians (wall time, tokens per minute, steps), and the model's
// time next to the original fix's. Each can order its rows by its own figure ("Order by").
import { type GroupFigures } from '#analytics/group-figures.ts';
import { originalFixComparison, type OriginalFixComparison } from '#analytics/original-fix-comparison.ts';
import { type MedianFigure } from '#analytics/quantiles.ts';
import { OUTCOME_LABELS, type OutcomeRate, type ResolveOutcome } from '#analytics/statistics.ts';
import {
  card,
  nameRankedOrder,
  ordered,
  percentAxis,
  rankedThen,
  sortLabels,
  type Card,
  type Named,
  type SortChoice,
  type CardCsv,
} from './card.ts';
import { barList, legend, type BarRow } from '../widgets/charts/bars.ts';
import { linearAxis, logDurationAxis } from '../widgets/charts/ticks.ts';
import { fill } from '../widgets/dom.ts';
import { count, durationTick, hours, num, percent, shortNumber, UNKNOWN } from '../widgets/format.ts';
import { ciText, intervalText, percentOf } from '../widgets/intervals.ts';
import { outsideOf, outsideParts, rateLabel, type TileFigures } from './kpi-tiles.ts';
import { MODEL_COLOUR, ORIGINAL_COLOUR, VERDICT_COLOURS, VERDICT_LABELS, VERDICT_ORDER } from '../widgets/palette.ts';
import type { Computed } from '../page/view-model.ts';

type OriginalRow = OriginalFixComparison & { label: string };

const rate = (r: { rate: number | null }) => r.rate;
const median = (f: MedianFigure) => f.median;
const ratioOf = (r: OriginalFixComparison) => (r.modelHours && r.originalHours ? r.originalHours / r.modelHours : null);
const times = (ratio: number) => `${ratio >= 10 ? num(ratio) : num(ratio, 1)}×`;

export const SORTS = {
  verdicts: rankedThen<Named>(
    { label: 'share judged resolved', value: (g) => (g.runs ? g.verdicts.resolved / g.runs : null) },
    { label: 'share judged wrong', value: (g) => (g.runs ? g.verdicts.wrong / g.runs : null) },
    { label: 'runs', value: (g) => g.runs },
  ),
  resolve: rankedThen<ResolveGroup>(
    { label: 'resolve rate · hidden tests', value: (g) => rate(g.outcomes.tests) },
    { label: 'resolve rate · judge', value: (g) => rate(g.outcomes.judge) },
  ),
  wall: rankedThen<Named>({ label: 'median wall time', value: (g) => median(g.wallSeconds) }),
  tokens: rankedThen<Named>({ label: 'output tokens per minute', value: (g) => median(g.outputTokensPerMinute) }),
  steps: rankedThen<Named>(
    { label: 'median steps', value: (g) => median(g.steps) },
    { label: 'budget ran out', value: (g) => rate(g.budgetExhausted) },
  ),
  original: rankedThen<OriginalRow>(
    { label: 'fix time ÷ model time', value: (r) => ratioOf(r) },
    { label: 'model wall time', value: (r) => r.modelHours },
    { label: 'original fix time', value: (r) => r.originalHours },
  ),
} satisfies Record<string, SortChoice<Named>[] | SortChoice<ResolveGroup>[] | SortChoice<OriginalRow>[]>;

export const named = (m: Computed): Named[] =>
  m.figures.groups.map((g) => Object.assign(Object.create(g) as GroupFigures, { label: m.label(g) }) as Named);

function verdictRow(g: Named): BarRow {
  let from = 0;
  const segments = VERDICT_ORDER.filter((v) => g.verdicts[v] > 0).map((v) => {
    const width = g.verdicts[v] / g.runs;
    const s = {
      from,
      width,
      colour: VERDICT_COLOURS[v],
      title: `${VERDICT_LABELS[v]}: ${count(g.verdicts[v])} of ${count(g.runs)} (${percent(width)})`,
    };
    from += width;
    return s;
  });
  return { label: g.label, lanes: [{ segments }], value: `${count(g.runs)} runs` };
}

/** The configuration's name and parts, first in every card's data. */
export const GROUP_COLUMNS = ['configuration', 'model', 'harnessVersion'];
export const groupCells = (g: Pick<Named, 'label' | 'model' | 'harnessVersion'>) => [
  g.label,
  g.model,
  g.harnessVersion,
];

export function renderVerdicts(c: Card, m: Computed): CardCsv {
  nameRankedOrder(c, m.outcome);
  const groups = ordered(named(m), c, SORTS.verdicts);
  const csv: CardCsv = () => ({
    columns: [...GROUP_COLUMNS, 'runs', ...VERDICT_ORDER],
    rows: groups.map((g) => [...groupCells(g), g.runs, ...VERDICT_ORDER.map((v) => g.verdicts[v])]),
  });
  fill(
    c.body,
    legend(VERDICT_ORDER.map((v) => ({ label: VERDICT_LABELS[v], colour: VERDICT_COLOURS[v] }))),
    barList(groups.map(verdictRow), percentAxis('share of the model’s runs')),
  );
  return csv;
}

const OUTCOME_COLOURS: Record<ResolveOutcome, string> = { judge: VERDICT_COLOURS.resolved, tests: MODEL_COLOUR };

/** What the resolve-rate chart shows of a configuration: the browser's figures, or engine mode's from `/stats`. */
export interface ResolveGroup {
  label: string;
  model: string;
  harnessVersion: string;
  outcomes: Record<ResolveOutcome, OutcomeRate>;
  outside: TileFigures['outside'];
}

/** One lane per outcome, the one in view first. */
function resolveRow(g: ResolveGroup, outcomes: ResolveOutcome[]): BarRow {
  const lane = (r: OutcomeRate) => {
    const what = rateLabel(r.outcome);
    const title = `${what}: ${count(r.hits)} of ${count(r.n)}, ${percentOf(r)}`;
    return {
      segments: r.rate === null ? [] : [{ from: 0, width: r.rate, colour: OUTCOME_COLOURS[r.outcome], title }],
      interval: r.ci ? { from: r.ci[0], to: r.ci[1], title: `${what}: ${ciText(r)} (n=${count(r.n)})` } : undefined,
    };
  };
  const [first, second] = outcomes.map((o) => g.outcomes[o]);
  // Each rate's interval beside its own n and the runs its n leaves out.
  const ci = (r: OutcomeRate) =>
    `${r.ci ? intervalText(r.ci) : 'none'} (n=${count(r.n)} ${OUTCOME_LABELS[r.outcome]}; ` +
    // Kept on one line with the word before it, so a wrapped note never ends on "n)" alone.
    `${outsideParts(g.outside, r.outcome) || 'none'}\u00a0outside\u00a0n)`;
  return {
    label: g.label,
    lanes: [lane(first!), lane(second!)],
    value: `${percent(first!.rate)} · ${percent(second!.rate)}`,
    note: `95% CI ${ci(first!)} · ${ci(second!)}`,
    unknown: first!.rate === null,
  };
}

export const renderResolve = (c: Card, m: Computed): CardCsv =>
  renderResolveGroups(
    c,
    named(m).map((g) => ({
      label: g.label,
      model: g.model,
      harnessVersion: g.harnessVersion,
      outcomes: g.outcomes,
      outside: outsideOf(g),
    })),
    m.outcome,
  );

/** The resolve-rate chart's frame, in both modes. */
export const resolveCard = (): Card =>
  card(
    'chart-resolve-rate',
    'Resolve rate',
    'Hidden tests: pass ÷ (pass + fail). Judge: resolved ÷ (resolved + partial + wrong + no change). ' +
      'The outcome in view comes first. The whisker is the 95% interval, where the rate could lie given n: ' +
      "Wilson's where each task ran once, clustered by task where samples repeat.",
    { sorts: sortLabels(SORTS.resolve) },
  );

/** The resolve-rate chart of configurations given ranked on `outcome`. */
export function renderResolveGroups(c: Card, ranked: ResolveGroup[], outcome: ResolveOutcome): CardCsv {
  nameRankedOrder(c, outcome);
  const outcomes: ResolveOutcome[] = outcome === 'tests' ? ['tests', 'judge'] : ['judge', 'tests'];
  const groups = ordered(ranked, c, SORTS.resolve);
  const csv: CardCsv = () => ({
    columns: [...GROUP_COLUMNS, 'outcome', 'resolved', 'n', 'rate', 'ciLow', 'ciHigh', 'outsideN'],
    rows: groups.flatMap((g) =>
      outcomes.map((o) => {
        const r = g.outcomes[o];
        return [...groupCells(g), o, r.hits, r.n, r.rate, r.ci?.[0] ?? null, r.ci?.[1] ?? null, r.outside];
      }),
    ),
  });
  fill(
    c.body,
    legend(outcomes.map((o) => ({ label: rateLabel(o), colour: OUTCOME_COLOURS[o] }))),
    barList(
      groups.map((g) => resolveRow(g, outcomes)),
      percentAxis(`rate (${OUTCOME_LABELS[outcomes[0]!]} above, ${OUTCOME_LABELS[outcomes[1]!]} below)`),
    ),
  );
  fill(
    c.foot,
    'Hidden tests: runs without a pass or fail result are outside n. Judge: flagged, excluded, error and ' +
      'not-yet-judged runs are outside n. Each rate counts its own beside its n.',
  );
  return csv;
}

function medianRows(
  groups: Named[],
  figure: (g: GroupFigures) => MedianFigure,
  format: (v: number) => string,
  scale: (v: number) => number,
  extra?: (g: GroupFigures) => string,
): BarRow[] {
  return groups.map((g) => {
    const f = figure(g);
    const known = `${f.known === f.n ? 'all' : count(f.known)} of ${count(f.n)} runs known`;
    return {
      label: g.label,
      lanes: [
        {
          segments:
            f.median === null
              ? []
              : [
                  {
                    from: 0,
                    width: scale(f.median),
                    colour: MODEL_COLOUR,
                    title: `median ${format(f.median)}; ${known}`,
                  },
                ],
          range:
            f.p25 === null || f.p75 === null
              ? undefined
              : { from: scale(f.p25), to: scale(f.p75), title: `middle half: ${format(f.p25)} – ${format(f.p75)}` },
        },
      ],
      value: f.median === null ? UNKNOWN : format(f.median),
      // What the bar shows comes first: "all of 120 runs known" is said of the median, not of the extra figure.
      note: extra ? `${known}; ${extra(g)}` : known,
      unknown: f.median === null,
    };
  });
}

export function renderMedians(
  c: Card,
  m: Computed,
  sorts: SortChoice<Named>[],
  figure: (g: GroupFigures) => MedianFigure,
  format: (v: number) => string,
  title: string,
  kind: 'number' | 'duration' = 'number',
  extra?: (g: GroupFigures) => string,
): CardCsv {
  nameRankedOrder(c, m.outcome);
  const groups = ordered(named(m), c, sorts);
  const csv: CardCsv = () => ({
    columns: [...GROUP_COLUMNS, 'median', 'p25', 'p75', 'known', 'runs'],
    rows: groups.map((g) => {
      const f = figure(g);
      return [...groupCells(g), f.median, f.p25, f.p75, f.known, f.n];
    }),
  });
  // Duration ticks carry their own unit (they change unit along the axis); number ticks are kept short
  // and the axis title names the unit.
  const axis = linearAxis(
    Math.max(0, ...groups.map((g) => figure(g).p75 ?? figure(g).median ?? 0)),
    `${title}: median, line = middle half`,
    kind === 'duration' ? durationTick : shortNumber,
    kind,
  );
  fill(c.body, barList(medianRows(groups, figure, format, axis.scale, extra), axis));
  return csv;
}

export function renderOriginal(c: Card, m: Computed): CardCsv {
  nameRankedOrder(c, m.outcome);
  const comparison = originalFixComparison(m.table, m.grouping, m.groupRows, m.facts, m.outcome);
  const byKey = new Map(comparison.map((r) => [`${r.model}\u0000${r.harnessVersion}`, r]));
  const rows: OriginalRow[] = m.figures.groups.map((g) => ({
    ...byKey.get(`${g.model}\u0000${g.harnessVersion}`)!,
    label: m.label(g),
  }));
  const seconds = rows
    .flatMap((r) => [r.modelHours, r.originalHours])
    .filter((v): v is number => v !== null)
    .map((h) => h * 3600);
  const axis = logDurationAxis(seconds, 'median time, log scale (each tick is a round duration)', durationTick);
  const resolvedOn = `resolved (${OUTCOME_LABELS[m.outcome]})`;
  const shown = ordered(rows, c, SORTS.original);
  const csv: CardCsv = () => ({
    columns: ['configuration', 'model', 'harnessVersion', 'modelHoursMedian', 'originalFixHoursMedian', 'pairs'],
    rows: shown.map((r) => [r.label, r.model, r.harnessVersion, r.modelHours, r.originalHours, r.pairs]),
  });
  fill(
    c.body,
    legend([
      { label: 'model wall time (median)', colour: MODEL_COLOUR, shape: 'dot' },
      { label: 'original fix: PR open → merge (median)', colour: ORIGINAL_COLOUR, shape: 'diamond' },
    ]),
    barList(
      shown.map((r): BarRow => {
        const dot = (h: number | null, colour: string, what: string, diamond = false) =>
          h === null ? [] : [{ at: axis.scale(h * 3600), colour, title: `${what}: ${hours(h)}`, diamond }];
        const ratio = ratioOf(r);
        return {
          label: r.label,
          lanes: [
            {
              segments: [],
              dots: [
                ...dot(r.modelHours, MODEL_COLOUR, 'model (median)'),
                ...dot(r.originalHours, ORIGINAL_COLOUR, 'original fix (median)', true),
              ],
            },
          ],
          value:
            ratio === null ? UNKNOWN : ratio >= 1 ? `fix ${times(ratio)} longer` : `model ${times(1 / ratio)} longer`,
          note: r.pairs
            ? `model ${hours(r.modelHours)} · fix ${hours(r.originalHours)}; ${count(r.pairs)} runs ${resolvedOn} with both times`
            : `no run ${resolvedOn} with both times`,
          unknown: ratio === null,
        };
      }),
      axis,
      'dots',
    ),
  );
  fill(
    c.foot,
    'The original fix time is calendar time, not effort, and its authors had context the issue text does not carry.',
  );
  return csv;
}
