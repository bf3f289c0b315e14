// The KPI tiles: one per group, its resolve rate on the outcome in view (named: "resolve rate · hidden tests") with
// n, the 95% interval as a whisker and in words (Wilson's, or clustered by task where samples repeat), the runs
// outside n, and the rate on the other outcome.
import type { GroupFigures } from '#analytics/group-figures.ts';
import { OUTCOME_LABELS, tooFewText, type OutcomeRate, type ResolveOutcome } from '#analytics/statistics.ts';
import { el, fill, nameText } from '../widgets/dom.ts';
import { count, percent } from '../widgets/format.ts';
import { ciText, percentOf } from '../widgets/intervals.ts';
import { tasksIn, type Computed } from '../page/view-model.ts';

export const rateLabel = (outcome: ResolveOutcome) => `resolve rate · ${OUTCOME_LABELS[outcome]}`;

export const OTHER: Record<ResolveOutcome, ResolveOutcome> = { tests: 'judge', judge: 'tests' };

/** What a tile shows of one configuration: the browser works it out from the runs, engine mode from `/stats`. */
export interface TileFigures {
  model: string;
  harnessVersion: string;
  label: string;
  /** Several harness versions in view: the tile names its own. */
  several: boolean;
  rank: number | null;
  minN: number;
  rate: OutcomeRate;
  /** The rate on the other outcome. */
  other: OutcomeRate;
  /** The runs outside n on the outcome: on the tests, those with no test result; on the judge's, by kind. */
  outside: { none: number; flagged: number; excluded: number; error: number; unjudged: number };
  /** The tasks the configuration ran in view. */
  tasks: number;
  runs: number;
  generated: number;
  campaign: Computed['campaign'];
}

/** The runs a rate leaves out of its n, named: the judge's by kind, the tests' as "no test result"; "" for none. */
export function outsideParts(outside: TileFigures['outside'], outcome: ResolveOutcome): string {
  if (outcome === 'tests') return outside.none ? `${count(outside.none)} no test result` : '';
  return [
    outside.flagged && `${count(outside.flagged)} flagged`,
    outside.excluded && `${count(outside.excluded)} excluded`,
    outside.error && `${count(outside.error)} error`,
    outside.unjudged && `${count(outside.unjudged)} not judged yet`,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** "outside n: 1 flagged · 2 excluded", or "outside n: none". */
export const outsideText = (outside: TileFigures['outside'], outcome: ResolveOutcome): string =>
  `outside n: ${outsideParts(outside, outcome) || 'none'}`;

/** A group's outside counts as the browser's figures hold them. */
export const outsideOf = (g: GroupFigures): TileFigures['outside'] => ({
  none: g.outcomes.tests.outside,
  flagged: g.resolve.flagged,
  excluded: g.resolve.excluded,
  error: g.resolve.error,
  unjudged: g.resolve.unjudged,
});

/** "120 of 300 SWE-bench Lite tasks": the tasks the group ran in view, of the population the cockpit declares. */
export function tasksText(campaign: Computed['campaign'], tasks: number): string {
  const population = campaign?.population;
  return population
    ? `${count(tasks)} of ${count(population.size)} ${population.name} tasks`
    : `${count(tasks)} tasks (no population declared)`;
}

/** The tasks a group ran among the runs in view. */
export function groupTasks(m: Computed, g: GroupFigures): number {
  const k = m.grouping.groups.findIndex((x) => x.model === g.model && x.harnessVersion === g.harnessVersion);
  return tasksIn(m, m.groupRows[k] ?? new Uint32Array());
}

/** The rate as a dot on a 0–100 % track with its interval as a whisker (a tile's picture of its uncertainty). */
function intervalBar(r: OutcomeRate): HTMLElement | null {
  if (r.rate === null || !r.ci) return null;
  const at = (v: number) => `${(v * 100).toFixed(2)}%`;
  return el(
    'div',
    {
      class: 'kpi-ci-bar',
      role: 'img',
      'aria-label': `${percent(r.rate)}, ${ciText(r)}, on a scale from 0 to 100%`,
      title: `${ciText(r)}, n=${count(r.n)}`,
    },
    el('span', { class: 'bar-ci', style: `left:${at(r.ci[0])};width:${at(r.ci[1] - r.ci[0])}` }),
    el('span', { class: 'kpi-ci-dot', style: `left:${at(r.rate)}` }),
  );
}

export function tile(g: TileFigures): HTMLElement {
  const r = g.rate;
  const outcome = r.outcome;
  const other = g.other;
  const rank = g.rank;
  const tooFew = rank === null && r.rate !== null;
  // Without a rate, one may still come: a hidden-test result, or a verdict for a run not judged yet. A run the
  // judge excluded, flagged or gave up on never gets one.
  const awaited = outcome === 'tests' || g.outside.unjudged > 0;
  return el(
    'div',
    { class: `kpi${tooFew ? ' too-few' : ''}`, title: g.label, 'data-rank': rank ?? '' },
    el(
      'div',
      { class: 'kpi-model' },
      rank !== null &&
        el('span', { class: 'kpi-rank', title: `Rank ${rank} on the ${OUTCOME_LABELS[outcome]}` }, `#${rank} `),
      g.generated > 0 &&
        el(
          'span',
          {
            class: 'generated',
            title: `${count(g.generated)} of ${count(g.runs)} runs have generated figures (demo data), not measured.`,
          },
          g.generated === g.runs ? '◇ ' : `◇${count(g.generated)}/${count(g.runs)} `,
        ),
      nameText(g.model),
    ),
    g.several && el('div', { class: 'kpi-harness' }, 'harness ', nameText(g.harnessVersion)),
    el('div', { class: 'kpi-label' }, rateLabel(outcome)),
    el(
      'div',
      {
        class: `kpi-rate${r.rate === null ? ' unknown' : ''}`,
        title:
          r.rate !== null
            ? rateLabel(outcome)
            : awaited
              ? `No run has a result on the ${OUTCOME_LABELS[outcome]} yet`
              : `Every run is outside n (${outsideParts(g.outside, outcome)}): the judge gives none of them a rate`,
      },
      r.rate === null ? (awaited ? 'no rate yet' : 'no rate') : percent(r.rate),
      el('span', { class: 'kpi-n' }, ` n=${count(r.n)}`),
    ),
    intervalBar(r),
    tooFew &&
      el(
        'div',
        { class: 'kpi-line kpi-too-few', title: `Below the cockpit's minimum of n = ${g.minN}: shown, not ranked` },
        tooFewText(r.n),
      ),
    el('div', { class: 'kpi-line kpi-ci', title: `${rateLabel(outcome)} ${percentOf(r)}` }, ciText(r)),
    el(
      'div',
      {
        class: 'kpi-line kpi-tasks',
        title: g.campaign?.sample ?? 'The cockpit declares no task population (cockpits.<name>.campaign).',
      },
      tasksText(g.campaign, g.tasks),
    ),
    el('div', { class: 'kpi-line' }, outsideText(g.outside, outcome)),
    el(
      'div',
      { class: 'kpi-line kpi-other', title: `${rateLabel(other.outcome)} ${percentOf(other)}` },
      `${OUTCOME_LABELS[other.outcome]}: ${percent(other.rate)} (n=${count(other.n)})`,
    ),
  );
}

export function renderKpis(host: HTMLElement, m: Computed): void {
  fill(
    host,
    ...m.figures.groups.map((g) =>
      tile({
        model: g.model,
        harnessVersion: g.harnessVersion,
        label: m.label(g),
        several: m.several,
        rank: m.rankOf(g),
        minN: m.minN,
        rate: g.outcomes[m.outcome],
        other: g.outcomes[OTHER[m.outcome]],
        outside: outsideOf(g),
        tasks: groupTasks(m, g),
        runs: g.runs,
        generated: g.generated,
        campaign: m.campaign,
      }),
    ),
  );
}
