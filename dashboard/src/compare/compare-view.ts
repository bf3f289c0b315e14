// The Compare area (docs/contract.md §6 "Paired comparison"): two groups (model · harness version) over the tasks both
// ran with a result on the outcome — the sentence a reader can quote (and copy), the paired table, the
// difference with its interval, and the discordant tasks as links to both runs — or all pairs at once. The figures come from the same function the
// read API's `/compare` answers with (shared/analytics/compare-groups.ts, on the one statistics module), run on
// the page's own table, so the page and the API cannot disagree.
import { type Group } from '#analytics/run-grouping.ts';
import { selectRuns } from '#analytics/run-selection.ts';
import { selectByDifficulty, taskDifficulty } from '#analytics/statistics.ts';
import { describeComparison, sampleSentence } from '#analytics/comparison-sentence.ts';
import { valueOfCode } from '#analytics/columns.ts';
import { verdictKeyAt } from '#analytics/result-filters.ts';
import { compareGroups } from '#analytics/compare-groups.ts';
import { sampleCountsOf } from '#analytics/task-samples.ts';
import { pairsInView, renderAllPairs, type PairsNav } from './all-pairs-view.ts';
import { differenceChart, groupName, pairedTable, rates } from './compare-figures.ts';
import { appLink, el, fill } from '../widgets/dom.ts';
import { count } from '../widgets/format.ts';
import { HIDDEN_TEST_LABELS, VERDICT_LABELS } from '../widgets/palette.ts';
import { holmOf, quoteSentence } from './quote-sentence.ts';
import type { CockpitFilters } from '../page/url-state.ts';
import { tasksIn, type Computed } from '../page/view-model.ts';

/** What the Compare view asks of the page around it. */
export interface CompareNav extends PairsNav {
  /** Every pair at once, or one pair. */
  showAllPairs(on: boolean): void;
  choose(side: 'a' | 'b', group: Group): void;
  swap(): void;
  /** The address of a run, so a discordant task is a real link. */
  runHref(id: string): string;
  openRun(id: string): void;
  /** The Task area on this task, and its address. */
  taskHref(taskId: string): string;
  openTask(taskId: string): void;
}

/** Discordant tasks listed per side; more are counted, not listed. */
const LISTED = 500;

const NO_TEST_RESULTS =
  'There are no test results in view: no run the filters select has a hidden-test ' +
  'result of pass or fail. Switch the outcome to the judge to compare on verdicts.';
const same = (x: Group | null, y: Group | null) =>
  !!x && !!y && x.model === y.model && x.harnessVersion === y.harnessVersion;

export class CompareView {
  readonly root = el('div', {
    class: 'compare',
    id: 'compare-area',
    role: 'tabpanel',
    'aria-labelledby': 'tab-compare',
  });
  private readonly pickA = el('select', { id: 'compare-a', 'aria-label': 'Group A' });
  private readonly pickB = el('select', { id: 'compare-b', 'aria-label': 'Group B' });
  private readonly body = el('div', { class: 'compare-body' });
  private readonly picks: HTMLElement;
  private readonly pairsHost = el('div', { class: 'all-pairs-body', id: 'all-pairs' });
  private readonly title = el('h2', { id: 'compare-title' }, 'Compare two groups on the tasks both ran');
  private readonly modes = {
    one: el(
      'button',
      { type: 'button', class: 'chip-toggle', 'data-mode': 'one', 'aria-pressed': 'true' },
      'two groups',
    ),
    all: el(
      'button',
      { type: 'button', class: 'chip-toggle', 'data-mode': 'all', 'aria-pressed': 'false' },
      'all pairs',
    ),
  };
  private options: Group[] = [];

  constructor(private readonly nav: CompareNav) {
    const swap = el(
      'button',
      { type: 'button', class: 'chip-toggle', id: 'compare-swap', title: 'Swap A and B' },
      '⇄ swap',
    );
    swap.addEventListener('click', () => this.nav.swap());
    this.modes.one.addEventListener('click', () => this.nav.showAllPairs(false));
    this.modes.all.addEventListener('click', () => this.nav.showAllPairs(true));
    this.picks = el(
      'div',
      { class: 'compare-picks' },
      el('label', {}, el('strong', {}, 'A '), this.pickA),
      swap,
      el('label', {}, el('strong', {}, 'B '), this.pickB),
    );
    for (const [side, select] of [
      ['a', this.pickA],
      ['b', this.pickB],
    ] as const) {
      select.addEventListener('change', () => {
        const g = this.options[Number(select.value)];
        if (g) this.nav.choose(side, g);
      });
    }
    this.root.append(
      el(
        'section',
        { class: 'card wide compare-card', 'aria-labelledby': 'compare-title' },
        el(
          'div',
          { class: 'card-head' },
          this.title,
          el('span', { class: 'colour-by', role: 'group', 'aria-label': 'Compare' }, this.modes.one, this.modes.all),
        ),
        el(
          'p',
          { class: 'card-explain' },
          'A group is one model with one harness version. Pairs are the tasks where both have a result on the outcome in view (a pass ' +
            'or fail hidden test, or a counted verdict); each task counts once, so the difference is not blurred by tasks only one of them ran.',
        ),
        this.picks,
        this.body,
        this.pairsHost,
        el(
          'p',
          { class: 'card-foot' },
          'With one run of each task on each side, the difference has Newcombe’s 95% interval for paired proportions (1998, method 10) and ' +
            'p is McNemar’s exact test on the tasks only one of them resolved; where samples repeat, the difference is of the per-task shares ' +
            'of samples resolved, its interval clustered by task, and p a sign-flip permutation test. ' +
            'The tier, wave, repository and difficulty filters apply; the verdict, tests and agreement filters do not, since a ' +
            'comparison needs every result. Fewer than 10 tasks in common: no comparison. Same figures as GET …/compare and GET …/pairs.',
        ),
      ),
    );
  }

  /** The pair shown: the chosen groups, else the two best groups in view, of one harness version when possible. */
  static pair(m: Computed, chosen: { a: Group | null; b: Group | null }): { a: Group | null; b: Group | null } {
    const groups = m.figures.groups;
    const a = chosen.a ?? groups.find((g) => !same(g, chosen.b)) ?? null;
    const b =
      chosen.b ??
      groups.find((g) => !same(g, a) && g.harnessVersion === a?.harnessVersion) ??
      groups.find((g) => !same(g, a)) ??
      null;
    return { a, b };
  }

  render(m: Computed, filters: CockpitFilters, chosen: { a: Group | null; b: Group | null }, all: boolean): void {
    this.modes.one.setAttribute('aria-pressed', String(!all));
    this.modes.all.setAttribute('aria-pressed', String(all));
    this.title.textContent = all
      ? 'All pairs of the configurations in view'
      : 'Compare two groups on the tasks both ran';
    this.picks.hidden = all;
    this.body.hidden = all;
    this.pairsHost.hidden = !all;
    if (all) {
      if (m.noTestResults) fill(this.pairsHost, el('p', { class: 'compare-sentence' }, NO_TEST_RESULTS));
      else renderAllPairs(this.pairsHost, m.label, pairsInView(m, filters), this.nav);
      return;
    }
    const { a, b } = CompareView.pair(m, chosen);
    // The groups in view, plus a linked group the filters hide (a shared link must show what it names).
    this.options = [...m.figures.groups];
    for (const g of [a, b]) if (g && !this.options.some((o) => same(o, g))) this.options.push(g);
    const option = (g: Group, k: number, picked: Group | null) =>
      el('option', { value: k, selected: same(g, picked) }, groupName(g));
    fill(this.pickA, ...this.options.map((g, k) => option(g, k, a)));
    fill(this.pickB, ...this.options.map((g, k) => option(g, k, b)));
    if (!a || !b) {
      fill(
        this.body,
        el(
          'p',
          { class: 'compare-sentence', id: 'compare-sentence' },
          `Compare needs two groups in view; the filters leave ${count(m.figures.groups.length)}.`,
        ),
      );
      return;
    }
    if (m.noTestResults) {
      fill(this.body, el('p', { class: 'compare-sentence', id: 'compare-sentence' }, NO_TEST_RESULTS));
      return;
    }
    if (same(a, b)) {
      fill(
        this.body,
        el(
          'p',
          { class: 'compare-sentence', id: 'compare-sentence' },
          `A and B are the same group (${groupName(a)}): pick two different ones.`,
        ),
      );
      return;
    }
    const inTiers = selectRuns(
      m.table,
      { models: [], harnessVersions: [], tiers: filters.tiers, waves: filters.waves, repos: filters.repos },
      m.facts,
    );
    const selection = filters.difficulties.length
      ? selectByDifficulty(m.table, inTiers, taskDifficulty(m.table, inTiers, m.outcome), filters.difficulties)
      : inTiers;
    const result = compareGroups(m.table, selection, a, b, m.outcome);
    const runs = { a: this.runsByTask(m, selection, a), b: this.runsByTask(m, selection, b) };
    // Where samples repeat, a task's result on each side is its share of samples resolved, not one run's.
    const shares = result.method === 'task-means' ? sharesByTask(m, selection, a, b) : null;
    const better = (x: Group, y: Group) =>
      shares
        ? `${groupName(x)} resolved a larger share of its samples than ${groupName(y)}`
        : `${groupName(x)} resolved, ${groupName(y)} did not`;
    fill(
      this.body,
      quoteSentence(
        describeComparison(groupName(a), groupName(b), result, holmOf(pairsInView(m, filters), a, b)) +
          // What the tasks are matters only to a comparison that has some.
          (result.difference !== null
            ? ` ${sampleSentence(m.campaign, tasksIn(m, selection), [a.harnessVersion, b.harnessVersion])}`
            : ''),
      ),
      result.difference !== null &&
        el(
          'div',
          { class: 'compare-grid' },
          pairedTable(a, b, result),
          el('div', { class: 'compare-figures' }, differenceChart(result), rates(a, b, result)),
        ),
      result.difference !== null &&
        el(
          'div',
          { class: 'discordant' },
          this.discordant(m, better(a, b), 'a-only', result.aOnlyTasks, runs, shares, a, b),
          this.discordant(m, better(b, a), 'b-only', result.bOnlyTasks, runs, shares, a, b),
        ),
    );
  }

  /** The group's run of each task (a run id is one model, task and harness version: one run per task). */
  private runsByTask(m: Computed, selection: Uint32Array, g: Group): { get(task: string): number | undefined } {
    const model = m.table.dictionaries.model.indexOf(g.model);
    const harness = m.table.dictionaries.harnessVersion.indexOf(g.harnessVersion);
    const byTask = new Int32Array(m.table.dictionaries.taskId.values.length).fill(-1);
    const { model: models, harnessVersion: harnesses, taskId } = m.table.text;
    if (model >= 0 && harness >= 0)
      for (let s = 0; s < selection.length; s++) {
        const i = selection[s]!;
        if (models[i] === model && harnesses[i] === harness) byTask[taskId[i]!] = i;
      }
    return {
      get: (task) => {
        const row = byTask[m.table.dictionaries.taskId.indexOf(task)] ?? -1;
        return row < 0 ? undefined : row;
      },
    };
  }

  private discordant(
    m: Computed,
    title: string,
    id: string,
    tasks: string[],
    runs: { a: ReturnType<CompareView['runsByTask']>; b: ReturnType<CompareView['runsByTask']> },
    shares: ReturnType<typeof sharesByTask> | null,
    a: Group,
    b: Group,
  ): HTMLElement {
    const link = (group: Group, row: number | undefined, side: 'A' | 'B', task: string) => {
      if (shares) {
        const { n, c } = shares(side, task);
        return el(
          'span',
          { class: 'share', title: `${groupName(group)}: ${c} of ${n} samples resolved` },
          `${side}: ${c}/${n}`,
        );
      }
      if (row === undefined) return el('span', { class: 'muted' }, `${side}: no run`);
      const runId = m.table.id(row);
      // The run's result on the outcome compared: its hidden-test result, or its verdict.
      const result =
        m.outcome === 'tests'
          ? HIDDEN_TEST_LABELS[valueOfCode('hiddenTest', m.table.codes.hiddenTest[row]!) ?? 'none']
          : VERDICT_LABELS[verdictKeyAt(m.table, row)];
      const anchor = el(
        'a',
        {
          href: this.nav.runHref(runId),
          class: 'run-link',
          'data-run': runId,
          title: `Open the run of ${groupName(group)}`,
        },
        `${side}: ${result}`,
      );
      anchor.addEventListener('click', (e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        this.nav.openRun(runId);
      });
      return anchor;
    };
    const labelOf = (taskId: string) => {
      const t = m.table.dictionaries.taskId.indexOf(taskId);
      return t < 0 ? taskId : (m.taskLabels[t] ?? taskId);
    };
    return el(
      'section',
      { class: 'discordant-list', id: `discordant-${id}` },
      el('h3', {}, `${title} (${count(tasks.length)})`),
      tasks.length
        ? el(
            'ul',
            {},
            ...tasks.slice(0, LISTED).map((task) =>
              el(
                'li',
                { 'data-task': task },
                appLink(
                  this.nav.taskHref(task),
                  () => this.nav.openTask(task),
                  { class: 'task', title: `Every configuration on ${task}` },
                  labelOf(task),
                ),
                ' ',
                link(a, runs.a.get(task), 'A', task),
                ' · ',
                link(b, runs.b.get(task), 'B', task),
              ),
            ),
          )
        : el('p', { class: 'muted' }, 'None.'),
      tasks.length > LISTED &&
        el('p', { class: 'muted' }, `… and ${count(tasks.length - LISTED)} more (the export lists every run).`),
    );
  }
}

/** Each side's samples of a task with a result on the outcome, and those resolved. */
function sharesByTask(m: Computed, selection: Uint32Array, a: Group, b: Group) {
  const counts = sampleCountsOf(m.table, selection, [a, b], m.outcome);
  const index = new Map(counts.tasks.map((task, t) => [task, t]));
  return (side: 'A' | 'B', task: string) => {
    const [g, t] = [side === 'A' ? 0 : 1, index.get(task) ?? -1];
    return { n: counts.n[g]![t] ?? 0, c: counts.c[g]![t] ?? 0 };
  };
}
