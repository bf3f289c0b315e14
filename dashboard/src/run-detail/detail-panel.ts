// One run in full, titled "model · task · harness": the verdict and the judge's reasons, the hidden-test
// result, links to the issue and the fix PR, the candidate's patch beside the original fix, the run's attempts
// (docs/contract.md §4: earlier ones archived, never erased), the summary and every field of the row. Patches
// and summaries are shown as text: a summary's markdown is not rendered, so nothing a runner sends can become
// markup. Long lines wrap, so the panel is the one scroller.
import {
  apiPaths,
  type AttemptsBody,
  type CockpitIssue,
  type ReferenceBody,
  type RunTextsBody,
} from '#analytics/contract.ts';
import type { AttemptSummary } from '#schema/attempt.ts';
import type { RunRow } from '#schema/run.ts';
import type { Api } from '../page/api.ts';
import { el, fill } from '../widgets/dom.ts';
import { taskLabel } from '#analytics/result-filters.ts';
import { parsePatch, type PatchLayout } from './patch-view.ts';
import { attemptList } from './attempt-list.ts';
import { hiddenTestsSection } from './hidden-tests-section.ts';
import { patchComparison, type ReferenceResult } from './patch-comparison.ts';
import { fieldsTable } from './run-fields-table.ts';
import { rubricTable, verdictSection } from './verdict-section.ts';
import { sampleList, type TaskSample } from './sample-list.ts';

export class DetailPanel {
  readonly root = el('aside', { class: 'detail', id: 'run-detail', 'aria-label': 'Run detail', hidden: true });
  private current: string | null = null;
  /** Unified or split, kept while the reader moves from run to run. */
  private layout: PatchLayout = 'line-by-line';

  constructor(
    private readonly api: Api,
    private readonly space: string,
    /** The cockpit's `showReference`: without it the original fix is neither asked for nor given a place. */
    private readonly showReference: boolean,
    private readonly issueOf: (taskId: string) => CockpitIssue | null,
    private readonly onClose: () => void,
    /** A link to the Task area: every configuration's result on this run's task. */
    private readonly taskLink: (taskId: string) => HTMLElement,
    /** Every sample of the run's model, task and harness version in the page's table, the run among them. */
    private readonly samplesOf: (runId: string) => TaskSample[],
    /** A link that opens another run in this panel. */
    private readonly runLink: (runId: string, text: string) => HTMLElement,
  ) {}

  /** Shows the run; called again with the same id after a live update, it refreshes in place. */
  async show(id: string): Promise<void> {
    const fresh = id !== this.current;
    this.current = id;
    this.root.hidden = false;
    if (fresh) fill(this.root, this.head(id, id), el('p', { class: 'loading' }, 'Loading…'));
    try {
      const [row, { patch, summary }, reference, attempts] = await Promise.all([
        this.api.json<RunRow>(apiPaths.run(this.space, id)),
        this.api.json<RunTextsBody>(apiPaths.texts(this.space, id)),
        this.showReference ? this.api.optionalJson<ReferenceBody>(apiPaths.reference(this.space, id)) : null,
        this.api.json<AttemptsBody>(apiPaths.attempts(this.space, id)),
      ]);
      if (this.current !== id) return;
      const scroll = this.root.scrollTop;
      const issue = this.issueOf(row.taskId);
      const title = `${row.model} · ${taskLabel(row.taskId, issue)} · ${row.harnessVersion}`;
      fill(
        this.root,
        this.head(title, `${row.model} · ${row.taskId} · harness ${row.harnessVersion}\nrun ${row.id}`),
        ...this.body(row, issue, patch, summary, reference, attempts.attempts),
      );
      this.root.scrollTop = fresh ? 0 : scroll;
    } catch (e) {
      if (this.current !== id) return;
      const retry = el('button', { type: 'button', class: 'retry' }, 'Retry');
      retry.addEventListener('click', () => void this.show(id));
      fill(
        this.root,
        this.head(id, id),
        el(
          'div',
          { class: 'error-state', role: 'alert' },
          el('p', { class: 'error' }, `This run could not be loaded: ${(e as Error).message}`),
          retry,
        ),
      );
    }
  }

  get openId(): string | null {
    return this.current;
  }

  hide(): void {
    this.current = null;
    this.root.hidden = true;
    this.root.replaceChildren();
  }

  private head(title: string, tooltip: string) {
    const close = el(
      'button',
      { type: 'button', class: 'close', 'aria-label': 'Close run detail', title: 'Close (Esc)' },
      '×',
    );
    close.addEventListener('click', () => this.onClose());
    return el('header', { class: 'detail-head' }, el('h2', { title: tooltip }, title), close);
  }

  private body(
    row: RunRow,
    issue: CockpitIssue | null,
    patch: string | null,
    summary: string | null,
    reference: ReferenceResult,
    attempts: AttemptSummary[],
  ): (HTMLElement | null)[] {
    const generated = row.metricsSource === 'generated';
    const candidate = patch ? parsePatch(patch) : null;
    const fix = reference && 'body' in reference && reference.body.diff ? parsePatch(reference.body.diff) : null;
    const patches = {
      api: this.api,
      space: this.space,
      layout: this.layout,
      onLayout: (l: PatchLayout) => (this.layout = l),
    };
    return [
      generated
        ? el(
            'p',
            { class: 'generated-note' },
            `◇ Demo data: this row's figures were generated, not measured ` +
              `(metricsSource "generated"; data/README.md says which fields are real).`,
          )
        : null,
      links(row, issue, generated),
      el('p', { class: 'task-link' }, this.taskLink(row.taskId)),
      el(
        'div',
        { class: 'evidence' },
        verdictSection(row),
        el('div', { class: 'evidence-side' }, rubricTable(row), hiddenTestsSection(row.hiddenTestResult)),
      ),
      sampleList(this.samplesOf(row.id), row.id, this.runLink),
      patchComparison(patches, row, candidate, patch === null, reference, fix),
      attemptList(attempts),
      el(
        'section',
        {},
        el('h3', {}, 'Summary'),
        summary ? el('pre', { class: 'summary' }, summary) : el('p', { class: 'muted' }, 'No summary.'),
      ),
      el('section', {}, el('h3', {}, 'Row'), fieldsTable(row)),
    ];
  }
}

/** The issue and the fix PR on GitHub, when the records say which they are. Demo numbers are generated: no link. */
function links(row: RunRow, issue: CockpitIssue | null, generated: boolean): HTMLElement | null {
  const repo = row.repo ?? issue?.repo ?? null;
  const issueNumber = row.issueNumber ?? issue?.issueNumber ?? null;
  const fixPr = issue?.fixPrNumber ?? null;
  if (!repo || (issueNumber === null && fixPr === null)) return null;
  const link = (path: string, text: string) =>
    generated
      ? el('span', {}, text)
      : el('a', { href: `https://github.com/${repo}/${path}`, target: '_blank', rel: 'noopener noreferrer' }, text);
  return el(
    'p',
    { class: 'run-links' },
    `${repo}: `,
    issueNumber !== null && link(`issues/${issueNumber}`, `issue #${issueNumber}`),
    issueNumber !== null && fixPr !== null && ' · ',
    fixPr !== null && link(`pull/${fixPr}`, `fix PR #${fixPr}`),
    generated && el('span', { class: 'muted' }, ' (generated demo numbers: not linked)'),
  );
}
