// The Task area: every configuration's result on one task, side by side, each run a link to its detail. The
// configurations are those of the runs in view (the filters apply), in ranked order; one that did not run the
// task says so. The task is picked by its id, or reached from a run's detail and Compare's task lists.
import { configurationsText, DIFFICULTIES, OUTCOME_LABELS } from '#analytics/statistics.ts';
import { OUTCOME_RULES, RESOLVED, OUTSIDE } from '#analytics/outcome.ts';
import { TIERS, valueOfCode } from '#analytics/columns.ts';
import { tierCode, waveOf } from '#analytics/run-selection.ts';
import { appLink, el, fill, nameText } from '../widgets/dom.ts';
import { count, duration } from '../widgets/format.ts';
import { verdictShown } from '../runs-grid/runs-view.ts';
import type { Computed } from '../page/view-model.ts';

export interface TaskNav {
  openTask(taskId: string): void;
  openRun(runId: string): void;
  runHref(runId: string): string;
}

export class TaskView {
  readonly root = el('div', { class: 'task-view', id: 'task-area', role: 'tabpanel', 'aria-labelledby': 'tab-task' });
  private readonly picker = el('input', {
    type: 'search',
    id: 'task-pick',
    list: 'task-ids',
    placeholder: 'Task id, e.g. django__django-11283',
    'aria-label': 'Task',
  });
  private readonly ids = el('datalist', { id: 'task-ids' });
  private readonly body = el('div', { class: 'task-body' });
  private idsFor: unknown = null;

  constructor(private readonly nav: TaskNav) {
    const form = el(
      'form',
      { class: 'task-picker' },
      el('label', { for: 'task-pick' }, 'Task '),
      this.picker,
      this.ids,
    );
    form.append(el('button', { type: 'submit' }, 'Show'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (this.picker.value.trim()) this.nav.openTask(this.picker.value.trim());
    });
    this.root.append(form, this.body);
  }

  render(m: Computed, taskId: string | null): void {
    const tasks = m.table.dictionaries.taskId;
    if (this.idsFor !== tasks.values.length) {
      this.idsFor = tasks.values.length;
      fill(this.ids, ...[...tasks.values].sort().map((t) => el('option', { value: t })));
    }
    if (document.activeElement !== this.picker) this.picker.value = taskId ?? '';
    const t = taskId === null ? -1 : tasks.indexOf(taskId);
    if (t < 0) {
      fill(
        this.body,
        el(
          'p',
          { class: 'muted', role: 'status' },
          taskId === null
            ? 'Pick a task to see every configuration’s result on it.'
            : `No run in this space is of task “${taskId}”.`,
        ),
      );
      return;
    }
    // The runs in view of this task, per configuration (a configuration may have run it more than once).
    const runsOf = new Map<number, number[]>();
    let any = -1;
    for (let s = 0; s < m.selection.length; s++) {
      const i = m.selection[s]!;
      if (m.table.text.taskId[i] !== t) continue;
      any = i;
      const g = m.grouping.of[s]!;
      runsOf.set(g, [...(runsOf.get(g) ?? []), i]);
    }
    const rule = OUTCOME_RULES[m.outcome];
    const result = (i: number) => {
      const c = rule.classOf[m.table.codes[rule.field][i]!]!;
      return c === RESOLVED ? 'resolved' : c === OUTSIDE ? 'no result' : 'not resolved';
    };
    const row = (g: (typeof m.figures.groups)[number]) => {
      const k = m.grouping.groups.findIndex((x) => x.model === g.model && x.harnessVersion === g.harnessVersion);
      // A configuration's samples of the task in sample order, each named by its number.
      const runs = (runsOf.get(k) ?? []).sort((a, b) => m.table.sampleAt(a) - m.table.sampleAt(b));
      const name = el('th', { scope: 'row', class: 'text', title: m.label(g) }, nameText(m.label(g)));
      if (!runs.length)
        return el(
          'tr',
          { 'data-model': g.model, 'data-harness': g.harnessVersion },
          name,
          el('td', { class: 'text muted', colspan: 5 }, 'did not run this task (in view)'),
        );
      return el(
        'tr',
        { 'data-model': g.model, 'data-harness': g.harnessVersion },
        name,
        el('td', { class: 'text', 'data-cell': 'result' }, resultsText(runs.map(result))),
        el('td', { class: 'text' }, runs.map((i) => verdictShown(m, i).label).join(', ')),
        el(
          'td',
          { class: 'text' },
          runs.map((i) => valueOfCode('hiddenTest', m.table.codes.hiddenTest[i]!) ?? 'no result').join(', '),
        ),
        el('td', { class: 'num' }, runs.map((i) => duration(m.table.number('wallSeconds', i))).join(', ')),
        el(
          'td',
          { class: 'text' },
          ...runs.flatMap((i, n) => [
            n > 0 && ' · ',
            appLink(
              this.nav.runHref(m.table.id(i)),
              () => this.nav.openRun(m.table.id(i)),
              { class: 'task-run', 'data-run': m.table.id(i) },
              runs.length > 1 ? `sample ${m.table.sampleAt(i)}` : 'open run',
            ),
          ]),
        ),
      );
    };
    // The figure the task's difficulty band is read from, as the runs grid's tooltip says it.
    const shown = configurationsText(m.difficulty.resolved[t]!, m.difficulty.n[t]!);
    const tier = any < 0 ? 0 : tierCode(m.table, m.facts, any);
    const wave = any < 0 ? NaN : waveOf(m.table, m.facts, any);
    const band = m.difficulty.band[t]!;
    const repo = any < 0 ? null : m.table.string('repo', any);
    fill(
      this.body,
      el('h2', { id: 'task-title' }, m.taskLabels[t] ?? taskId),
      el(
        'p',
        { class: 'task-facts' },
        [
          `task ${taskId}`,
          repo && `repository ${repo}`,
          tier > 0 && `tier ${TIERS[tier - 1]} (senders’)`,
          band > 0 && `${DIFFICULTIES[band - 1]} (empirical)`,
          !Number.isNaN(wave) && `wave ${wave}`,
          `${shown} configurations in view with a result resolved it on the ${OUTCOME_LABELS[m.outcome]}`,
        ]
          .filter(Boolean)
          .join(' · '),
      ),
      el(
        'div',
        { class: 'table-scroll' },
        el(
          'table',
          { class: 'figures task-table', id: 'task-table' },
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              ...['Configuration', `Result · ${OUTCOME_LABELS[m.outcome]}`, 'Judge', 'Hidden tests'].map((h) =>
                el('th', { scope: 'col', class: 'text' }, h),
              ),
              el('th', { scope: 'col', class: 'num' }, 'Wall time'),
              el('th', { scope: 'col', class: 'text' }, 'Run'),
            ),
          ),
          el('tbody', {}, ...m.figures.groups.map(row)),
        ),
      ),
    );
  }
}

/** One run's result, or for several samples how many of those with a result resolved it, then each in turn. */
function resultsText(results: string[]): string {
  if (results.length === 1) return results[0]!;
  const known = results.filter((r) => r !== 'no result');
  const resolved = known.filter((r) => r === 'resolved').length;
  return `${count(resolved)} of ${count(known.length)} resolved: ${results.join(', ')}`;
}
