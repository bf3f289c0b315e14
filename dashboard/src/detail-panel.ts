// One run in full: verdict and the judge's reasons, the hidden-test result, every field of the row
// (unknown written as such), the patch with diff highlighting and the summary. Patches and summaries are
// shown as text: a summary's markdown is not rendered, so nothing a runner sends can become markup.
import { apiPaths } from '../../shared/read/contract.ts';
import type { RunRow } from '../../shared/schema/run.ts';
import type { Api } from './api.ts';
import { el, fill } from './dom.ts';
import { count, instant, UNKNOWN } from './format.ts';
import { VERDICT_COLOURS, VERDICT_LABELS } from './palette.ts';

const PATCH_LINES_SHOWN = 2000;

const FIELD_GROUPS: [string, (keyof RunRow)[]][] = [
  ['Task', ['taskId', 'repo', 'issueNumber', 'tier', 'wave']],
  ['Model', ['model', 'modelFamily', 'parameters', 'activeParameters', 'quantization', 'runtime']],
  ['Machine', ['host', 'hostHardware', 'contextWindow', 'historyCharsKept']],
  ['Harness', ['harnessVersion', 'maxSteps', 'maxOutputTokensPerCall', 'wallBudgetSeconds']],
  ['Time', ['startedAt', 'finishedAt', 'wallSeconds', 'steps', 'outcome']],
  ['Tokens', ['promptTokens', 'completionTokens', 'maxPromptTokensPerCall']],
  ['Throughput', ['outputTokensPerMinute', 'medianCallSeconds', 'medianCallOutputTokensPerSecond', 'medianStepSeconds', 'promptTokensPerSecond', 'generationTokensPerSecond']],
  ['Work', ['bashCalls', 'readCalls', 'editCalls', 'writeCalls', 'dotnetCommands', 'patchFilesChanged', 'patchLinesAdded', 'patchLinesRemoved']],
  ['Judge', ['judgeState', 'judgeModel', 'judgedAt', 'judgeAttempts', 'judgeNextAttemptAt', 'judgeRootCauseFound', 'judgeSameFilesAsReference', 'judgeSameFilesComputed', 'judgeTestAdded', 'judgeWouldCompile']],
  ['Pipeline', ['id', 'landedAt', 'updatedAt', 'patchTruncated', 'patchSha256', 'metricsSource']],
];

export class DetailPanel {
  readonly root = el('aside', { class: 'detail', id: 'run-detail', 'aria-label': 'Run detail', hidden: true });
  private current: string | null = null;

  constructor(private readonly api: Api, private readonly space: string, private readonly onClose: () => void) {}

  /** Shows the run; called again with the same id after a live update, it refreshes in place. */
  async show(id: string): Promise<void> {
    const fresh = id !== this.current;
    this.current = id;
    this.root.hidden = false;
    if (fresh) fill(this.root, this.head(id), el('p', { class: 'loading' }, 'Loading…'));
    try {
      const [row, patch, summary] = await Promise.all([
        this.api.json<RunRow>(apiPaths.run(this.space, id)),
        this.api.text(apiPaths.patch(this.space, id)),
        this.api.text(apiPaths.summary(this.space, id)),
      ]);
      if (this.current !== id) return;
      const scroll = this.root.scrollTop;
      fill(this.root, this.head(id), ...this.body(row, patch, summary));
      this.root.scrollTop = fresh ? 0 : scroll;
    } catch (e) {
      if (this.current === id) fill(this.root, this.head(id), el('p', { class: 'error' }, `This run could not be loaded: ${(e as Error).message}`));
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

  private head(id: string) {
    const close = el('button', { class: 'close', 'aria-label': 'Close run detail', title: 'Close (Esc)' }, '×');
    close.addEventListener('click', () => this.onClose());
    return el('header', { class: 'detail-head' }, el('h2', { title: id }, id), close);
  }

  private body(row: RunRow, patch: string | null, summary: string | null): (HTMLElement | null)[] {
    const verdict = row.judgeVerdict ?? 'unjudged';
    const test = row.hiddenTestResult;
    return [
      row.metricsSource === 'generated'
        ? el('p', { class: 'generated-note' }, `◇ Demo data (metricsSource "generated"): the figures of this row were generated, not measured. The project's data/README.md says which demo fields come from a real benchmark.`)
        : null,
      el(
        'section',
        { class: 'verdict-box' },
        el('span', { class: 'chip', style: `--chip:${VERDICT_COLOURS[verdict]}` }, VERDICT_LABELS[verdict]),
        el('span', { class: 'muted' }, ` judge state: ${row.judgeState}${row.judgeModel ? ` · by ${row.judgeModel}` : ''}${row.judgedAt ? ` · ${instant(row.judgedAt)}` : ''}`),
        row.judgeReason ? el('p', { class: 'reason' }, row.judgeReason) : el('p', { class: 'muted' }, 'No reasons: not judged by a model (yet).'),
        row.judgeLastError ? el('p', { class: 'error' }, `Last judge error (${row.judgeLastError.code}): ${row.judgeLastError.message}`) : null,
        row.contamination.length
          ? el('div', {}, el('strong', {}, 'Contamination'), el('ul', {}, ...row.contamination.map((c) => el('li', {}, `step ${c.step}: ${c.path}${c.reason ? ` — ${c.reason}` : ''}`))))
          : null,
      ),
      el(
        'section',
        { class: 'tests-box' },
        el('h3', {}, 'Hidden tests'),
        test
          ? el(
              'p',
              {},
              el('strong', {}, test.status),
              test.total !== undefined || test.passed !== undefined || test.failed !== undefined
                ? ` — ${test.passed ?? UNKNOWN} passed, ${test.failed ?? UNKNOWN} failed, of ${test.total ?? UNKNOWN}`
                : '',
              ` · ran ${instant(test.ranAt)}`,
              test.details ? el('pre', { class: 'details' }, test.details) : null,
            )
          : el('p', { class: 'muted' }, 'No hidden-test result for this run.'),
      ),
      el('section', {}, el('h3', {}, 'Patch'), row.patchTruncated ? el('p', { class: 'warn' }, 'The runner cut this patch to fit: the end is missing.') : null, patchView(patch)),
      el('section', {}, el('h3', {}, 'Summary'), summary ? el('pre', { class: 'summary' }, summary) : el('p', { class: 'muted' }, 'No summary.')),
      el('section', {}, el('h3', {}, 'Row'), fieldsTable(row)),
    ];
  }
}

function patchView(patch: string | null): HTMLElement {
  if (!patch) return el('p', { class: 'muted' }, 'No patch: the run changed nothing.');
  const lines = patch.split('\n');
  const pre = el('pre', { class: 'diff', 'aria-label': 'Patch' });
  const render = (limit: number) => {
    const fragment = document.createDocumentFragment();
    for (const line of lines.slice(0, limit)) fragment.append(el('span', { class: lineClass(line) }, line), '\n');
    pre.replaceChildren(fragment);
  };
  render(PATCH_LINES_SHOWN);
  if (lines.length <= PATCH_LINES_SHOWN) return pre;
  const more = el('button', { class: 'link' }, `Show all ${count(lines.length)} lines`);
  more.addEventListener('click', () => {
    render(lines.length);
    more.remove();
  });
  return el('div', {}, pre, more);
}

function lineClass(line: string): string {
  if (line.startsWith('diff ') || line.startsWith('index ') || line.startsWith('--- ') || line.startsWith('+++ ')) return 'd-file';
  if (line.startsWith('@@')) return 'd-hunk';
  if (line.startsWith('+')) return 'd-add';
  if (line.startsWith('-')) return 'd-del';
  return 'd-ctx';
}

function fieldsTable(row: RunRow): HTMLElement {
  const value = (v: unknown): [string, boolean] => {
    if (v === null || v === undefined) return [UNKNOWN, true];
    if (typeof v === 'object') return [JSON.stringify(v), false];
    return [String(v), false];
  };
  return el(
    'table',
    { class: 'fields' },
    ...FIELD_GROUPS.map(([group, keys]) =>
      el(
        'tbody',
        {},
        el('tr', {}, el('th', { colspan: 2, class: 'group' }, group)),
        ...keys.map((k) => {
          const [text, unknown] = value(row[k]);
          return el('tr', {}, el('th', { scope: 'row' }, k), el('td', { class: unknown ? 'unknown' : '' }, text));
        }),
      ),
    ),
  );
}
