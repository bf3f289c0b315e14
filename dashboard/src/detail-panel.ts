// One run in full, titled "model · task · harness": verdict and the judge's reasons, the hidden-test
// result (its failing tests by name, then the passing ones folded), links to the issue and the fix PR, the files the candidate changed with +/− counts, the
// candidate's patch beside the original fix (as the judge cached it, lock files left out; never the issue
// text), the run's attempts (docs/contract.md §4: earlier ones archived, never erased) with their verdicts, the
// summary, and every field of the row with its unit (unknown written as such). Patches and
// summaries are shown as text: a summary's markdown is not rendered, so nothing a runner sends can become
// markup. Long lines wrap, so the panel is the one scroller.
import { apiPaths, type AttemptsBody, type CockpitIssue, type ReferenceBody } from '../../shared/cockpit/contract.ts';
import type { AttemptSummary } from '../../shared/schema/attempt.ts';
import type { RunRow } from '../../shared/schema/run.ts';
import type { Api } from './api.ts';
import { el, fill } from './dom.ts';
import { taskLabel } from '../../shared/cockpit/result-filters.ts';
import { filePath, parsePatch, patchView, type ParsedPatch, type PatchLayout } from './patch-view.ts';
import { count, duration, instant, num, UNKNOWN, withUnit } from './format.ts';
import { FLAGGED_COLOUR, FLAGGED_LABEL, VERDICT_COLOURS, VERDICT_LABELS } from './palette.ts';
import { flagDescription } from '../../shared/cockpit/flag-rules.ts';

type Field = keyof RunRow;

const FIELD_GROUPS: [string, Field[]][] = [
  ['Task', ['taskId', 'repo', 'issueNumber', 'tier', 'wave']],
  ['Model', ['model', 'modelFamily', 'parameters', 'activeParameters', 'quantization', 'runtime']],
  ['Machine', ['host', 'hostHardware', 'contextWindow', 'historyCharsKept']],
  ['Harness', ['harnessVersion', 'maxSteps', 'maxOutputTokensPerCall', 'wallBudgetSeconds']],
  ['Time', ['startedAt', 'finishedAt', 'wallSeconds', 'steps', 'outcome']],
  ['Tokens and cost', ['promptTokens', 'completionTokens', 'maxPromptTokensPerCall', 'costUsd']],
  [
    'Throughput',
    [
      'outputTokensPerMinute',
      'medianCallSeconds',
      'medianCallOutputTokensPerSecond',
      'medianStepSeconds',
      'promptTokensPerSecond',
      'generationTokensPerSecond',
    ],
  ],
  [
    'Work',
    [
      'bashCalls',
      'readCalls',
      'editCalls',
      'writeCalls',
      'dotnetCommands',
      'patchFilesChanged',
      'patchLinesAdded',
      'patchLinesRemoved',
    ],
  ],
  [
    'Judge',
    [
      'judgeState',
      'judgeModel',
      'judgedAt',
      'judgeAttempts',
      'judgeNextAttemptAt',
      'judgeRootCauseFound',
      'judgeSameFilesAsReference',
      'judgeSameFilesComputed',
      'judgeTestAdded',
      'judgeWouldCompile',
    ],
  ],
  ['Pipeline', ['id', 'landedAt', 'updatedAt', 'patchTruncated', 'patchSha256', 'metricsSource']],
];

const seconds = (v: number) => (v < 90 ? withUnit(v, 's', 1) : `${duration(v)} (${withUnit(v, 's')})`);

/** Figures with their units; a field not listed is shown as it is. */
const UNITS: Partial<Record<Field, (v: number) => string>> = {
  issueNumber: (v) => `#${v}`,
  contextWindow: (v) => withUnit(v, 'tokens'),
  historyCharsKept: (v) => withUnit(v, 'characters'),
  maxSteps: (v) => withUnit(v, 'steps'),
  maxOutputTokensPerCall: (v) => withUnit(v, 'tokens'),
  wallBudgetSeconds: seconds,
  wallSeconds: seconds,
  steps: (v) => withUnit(v, 'steps'),
  promptTokens: (v) => withUnit(v, 'tokens'),
  completionTokens: (v) => withUnit(v, 'tokens'),
  maxPromptTokensPerCall: (v) => withUnit(v, 'tokens'),
  costUsd: (v) => `$${v.toFixed(v < 1 ? 4 : 2)}`,
  outputTokensPerMinute: (v) => withUnit(v, 'tokens/min', 1),
  medianCallSeconds: seconds,
  medianCallOutputTokensPerSecond: (v) => withUnit(v, 'tokens/s', 1),
  medianStepSeconds: seconds,
  promptTokensPerSecond: (v) => withUnit(v, 'tokens/s', 1),
  generationTokensPerSecond: (v) => withUnit(v, 'tokens/s', 1),
  bashCalls: (v) => withUnit(v, 'calls'),
  readCalls: (v) => withUnit(v, 'calls'),
  editCalls: (v) => withUnit(v, 'calls'),
  writeCalls: (v) => withUnit(v, 'calls'),
  dotnetCommands: (v) => withUnit(v, 'commands'),
  patchFilesChanged: (v) => withUnit(v, 'files'),
  patchLinesAdded: (v) => withUnit(v, 'lines'),
  patchLinesRemoved: (v) => withUnit(v, 'lines'),
  judgeAttempts: (v) => withUnit(v, 'attempts'),
};

const INSTANTS = new Set<Field>(['startedAt', 'finishedAt', 'judgedAt', 'judgeNextAttemptAt', 'landedAt', 'updatedAt']);

/** `promptTokensPerSecond` → "Prompt tokens per second". */
const fieldLabel = (key: string) => {
  const words = key
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase()
    .trim();
  return words[0]!.toUpperCase() + words.slice(1);
};

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
  ) {}

  /** Shows the run; called again with the same id after a live update, it refreshes in place. */
  async show(id: string): Promise<void> {
    const fresh = id !== this.current;
    this.current = id;
    this.root.hidden = false;
    if (fresh) fill(this.root, this.head(id, id), el('p', { class: 'loading' }, 'Loading…'));
    try {
      const [row, patch, summary, reference, attempts] = await Promise.all([
        this.api.json<RunRow>(apiPaths.run(this.space, id)),
        this.api.text(apiPaths.patch(this.space, id)),
        this.api.text(apiPaths.summary(this.space, id)),
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
    reference: { body: ReferenceBody } | { missing: string } | null,
    attempts: AttemptSummary[],
  ): (HTMLElement | null)[] {
    const test = row.hiddenTestResult;
    const generated = row.metricsSource === 'generated';
    const candidate = patch ? parsePatch(patch) : null;
    const fix = reference && 'body' in reference && reference.body.diff ? parsePatch(reference.body.diff) : null;
    return [
      generated
        ? el(
            'p',
            { class: 'generated-note' },
            `◇ Demo data: this row's figures were generated, not measured (metricsSource "generated"; data/README.md says which fields are real).`,
          )
        : null,
      links(row, issue, generated),
      el(
        'div',
        { class: 'evidence' },
        el(
          'section',
          { class: 'verdict-box', 'aria-label': 'Verdict' },
          verdictLine(row),
          row.judgeReason
            ? el('p', { class: 'reason' }, row.judgeReason)
            : el('p', { class: 'muted' }, 'No reasons: not judged by a model (yet).'),
          row.judgeLastError
            ? el(
                'p',
                { class: 'error' },
                `Last judge error (${row.judgeLastError.code}): ${row.judgeLastError.message}`,
              )
            : null,
          flagsOf(row),
          row.contamination.length
            ? el(
                'div',
                {},
                el('strong', {}, 'Contamination'),
                el(
                  'ul',
                  {},
                  ...row.contamination.map((c) =>
                    el('li', {}, `step ${c.step}: ${c.path}${c.reason ? ` — ${c.reason}` : ''}`),
                  ),
                ),
              )
            : null,
        ),
        el(
          'div',
          { class: 'evidence-side' },
          rubricTable(row),
          el(
            'section',
            { class: 'tests-box', 'aria-label': 'Hidden tests' },
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
                  test.details
                    ? el(
                        'details',
                        {},
                        el('summary', {}, 'How this result was made'),
                        el('pre', { class: 'details' }, test.details),
                      )
                    : null,
                )
              : el('p', { class: 'muted' }, 'No hidden-test result for this run.'),
            ...(test ? testNameLists(test) : []),
          ),
        ),
      ),
      this.diffs(row, candidate, patch === null, reference, fix),
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

  /**
   * The candidate beside the original fix (when the cockpit may show it), each laid out by diff2html, unified
   * or split, under one list of the files either changes, marked by which of the two change them.
   */
  private diffs(
    row: RunRow,
    candidate: ParsedPatch | null,
    noPatch: boolean,
    reference: { body: ReferenceBody } | { missing: string } | null,
    fix: ParsedPatch | null,
  ): HTMLElement {
    const pair = el('div', { class: reference ? 'diff-pair' : 'diff-single' });
    const toggles = (['line-by-line', 'side-by-side'] as const).map((layout) => {
      const b = el(
        'button',
        { type: 'button', class: 'chip-toggle', 'aria-pressed': String(layout === this.layout), 'data-layout': layout },
        layout === 'line-by-line' ? 'Unified' : 'Split',
      );
      b.addEventListener('click', () => {
        this.layout = layout;
        toggles.forEach((t) => t.setAttribute('aria-pressed', String(t === b)));
        render();
      });
      return b;
    });
    const full = (path: string, text: string) => {
      const href = this.api.url(path);
      if (!this.api.signedIn) return el('a', { href, target: '_blank', rel: 'noopener' }, text);
      const b = el('button', { type: 'button', class: 'link' }, text);
      b.addEventListener('click', () => void this.api.download(href, `${row.id}.diff`));
      return b;
    };
    const render = () =>
      fill(
        pair,
        el(
          'div',
          { class: 'diff-side', id: 'candidate-side' },
          el('h4', {}, 'Candidate patch (this run)'),
          row.patchTruncated
            ? el('p', { class: 'warn', role: 'note' }, 'The runner cut this patch to fit: the end is missing.')
            : null,
          candidate
            ? patchView(
                candidate,
                'Candidate patch',
                this.layout,
                full(apiPaths.patch(this.space, row.id), 'The whole patch'),
              )
            : el('p', { class: 'muted' }, noPatch ? 'No patch: the run changed nothing.' : 'The patch is empty.'),
        ),
        reference
          ? el(
              'div',
              { class: 'diff-side', id: 'reference-side' },
              el('h4', {}, 'Original fix (merged)'),
              'missing' in reference
                ? el('p', { class: 'muted' }, reference.missing)
                : reference.body.omittedLockFiles.length
                  ? el('p', { class: 'muted' }, `Lock files left out: ${reference.body.omittedLockFiles.join(', ')}.`)
                  : null,
              'body' in reference
                ? fix
                  ? patchView(
                      fix,
                      'Original fix',
                      this.layout,
                      full(apiPaths.reference(this.space, row.id), 'The whole fix'),
                    )
                  : el('p', { class: 'muted' }, 'The original fix changed nothing but lock files.')
                : null,
            )
          : null,
      );
    render();
    return el(
      'section',
      { class: 'diffs' },
      el(
        'div',
        { class: 'diffs-head' },
        el('h3', {}, reference ? 'The candidate beside the original fix' : 'The candidate patch'),
        el('span', { class: 'layout-switch', role: 'group', 'aria-label': 'Diff layout' }, ...toggles),
      ),
      fileList(candidate, fix, reference !== null && 'body' in reference),
      pair,
    );
  }
}

/** The tests the result names: the failing ones open first, the passing ones folded away below them. */
function testNameLists(test: NonNullable<RunRow['hiddenTestResult']>): (HTMLElement | null)[] {
  const names = (list: string[]) => el('ul', { class: 'test-names' }, ...list.map((name) => el('li', {}, name)));
  const { failedTests: failed, passedTests: passed } = test;
  return [
    failed
      ? el(
          'div',
          { class: 'failed-tests' },
          el('strong', {}, `Failing tests (${count(failed.length)})`),
          failed.length ? names(failed) : el('p', { class: 'muted' }, 'None.'),
        )
      : null,
    passed
      ? el(
          'details',
          { class: 'passed-tests' },
          el('summary', {}, `Passing tests (${count(passed.length)})`),
          passed.length ? names(passed) : el('p', { class: 'muted' }, 'None.'),
        )
      : null,
  ];
}

/**
 * Every attempt of the run, newest first as the API lists them, with its verdict and hidden-test result;
 * the row's own attempt is marked. An earlier attempt's patch differs (its sha-256 prefix says so).
 */
function attemptList(attempts: AttemptSummary[]): HTMLElement {
  const rerun = attempts.length > 1;
  return el(
    'section',
    { class: 'attempts', id: 'run-attempts' },
    el('h3', {}, rerun ? `Attempts (${count(attempts.length)}: this run was re-run)` : 'Attempts (1)'),
    el(
      'table',
      { class: 'attempt-list', 'aria-label': 'Attempts of this run, newest first' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['', 'Finished (UTC)', 'Outcome', 'Steps', 'Wall time', 'Verdict', 'Hidden tests', 'Patch'].map((h) =>
            el('th', { scope: 'col' }, h),
          ),
        ),
      ),
      el(
        'tbody',
        {},
        ...attempts.map((a) => {
          const verdict = a.judgeVerdict ?? 'unjudged';
          return el(
            'tr',
            {
              class: a.current ? 'current' : 'archived',
              'data-current': String(a.current),
              title: `landed ${instant(a.landedAt)}`,
            },
            el(
              'td',
              {},
              a.current
                ? el('strong', { title: 'The run row shows this attempt' }, 'current')
                : a.conflict
                  ? el(
                      'span',
                      {
                        class: 'muted',
                        title: 'Another patch for a finish time whose first accepted patch is current: never judged',
                      },
                      'conflict',
                    )
                  : el('span', { class: 'muted', title: 'Archived: kept, never erased' }, 'earlier'),
            ),
            el('td', {}, instant(a.finishedAt)),
            el('td', {}, a.outcome),
            el('td', { class: 'num' }, a.steps === null ? UNKNOWN : num(a.steps)),
            el('td', { class: 'num' }, duration(a.wallSeconds)),
            el(
              'td',
              {},
              el(
                'span',
                {
                  class: 'chip',
                  style: `--chip:${VERDICT_COLOURS[verdict]}`,
                  title: a.judgeModel ? `by ${a.judgeModel}${a.judgedAt ? ` · ${instant(a.judgedAt)}` : ''}` : '',
                },
                VERDICT_LABELS[verdict],
              ),
            ),
            el('td', {}, a.hiddenTestStatus ?? 'no result'),
            el('td', { class: 'mono', title: `patch sha-256 ${a.patchSha256}` }, a.patchSha256.slice(0, 8)),
          );
        }),
      ),
    ),
  );
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

/** Which rules flagged the judge's answer, and what that did to the verdict. */
function flagsOf(row: RunRow): HTMLElement | null {
  const flags = row.judgeFlags ?? [];
  if (!flags.length) return null;
  return el(
    'div',
    { class: 'judge-flags' },
    el(
      'p',
      {},
      row.judgeState === 'flagged'
        ? 'Flagged: the judge model answered "resolved", and these checks contradict it, so the run is not counted in the resolve rate:'
        : 'The screen found text addressed to the judge; this verdict stands (only a "resolved" is withheld):',
    ),
    el('ul', {}, ...flags.map((id) => el('li', {}, el('code', {}, id), ` — ${flagDescription(id)}`))),
  );
}

/**
 * The verdict the run counts by and where it comes from: the hidden tests when they passed or failed, the
 * judge otherwise (as the cockpit's default outcome counts). The other check is named beside it.
 */
function verdictLine(row: RunRow): HTMLElement {
  const verdict = row.judgeVerdict ?? 'unjudged';
  const judgeChip =
    row.judgeState === 'flagged'
      ? el('span', { class: 'chip', style: `--chip:${FLAGGED_COLOUR}` }, FLAGGED_LABEL)
      : el('span', { class: 'chip', style: `--chip:${VERDICT_COLOURS[verdict]}` }, VERDICT_LABELS[verdict]);
  const by = `${row.judgeModel ? ` by ${row.judgeModel}` : ''}${row.judgedAt ? ` · ${instant(row.judgedAt)}` : ''}`;
  const status = row.hiddenTestResult?.status;
  if (status === 'pass' || status === 'fail') {
    const passed = status === 'pass';
    const judged = row.judgeVerdict !== null && row.judgeState !== 'flagged';
    const agrees = judged && (row.judgeVerdict === 'resolved') === passed;
    return el(
      'div',
      { class: 'verdict-line' },
      el('h3', {}, 'Verdict'),
      el(
        'span',
        { class: 'chip verdict-main', style: `--chip:${VERDICT_COLOURS[passed ? 'resolved' : 'wrong']}` },
        passed ? 'resolved' : 'not resolved',
      ),
      el('span', { class: 'verdict-source', 'data-source': 'tests' }, ` source: hidden tests (${status})`),
      el(
        'p',
        { class: 'muted judge-beside' },
        'Judge: ',
        judgeChip,
        `${by} · judge state ${row.judgeState}`,
        judged ? el('strong', { class: agrees ? '' : 'disagree-mark' }, agrees ? ' · agrees' : ' · disagrees') : null,
      ),
    );
  }
  return el(
    'div',
    { class: 'verdict-line' },
    el('h3', {}, 'Verdict'),
    judgeChip,
    el('span', { class: 'verdict-source', 'data-source': 'judge' }, ` source: judge${by}`),
    el('p', { class: 'muted' }, `judge state ${row.judgeState} · no hidden-test pass or fail`),
  );
}

const yesNo = (v: boolean | null) => (v === null ? UNKNOWN : v ? 'yes' : 'no');

/** The judge's rubric answers, with the fact computed from the two diffs beside its claim where there is one. */
function rubricTable(row: RunRow): HTMLElement {
  const rows: [string, boolean | null, boolean | null | undefined][] = [
    ['Root cause found', row.judgeRootCauseFound, undefined],
    ['Same files as the fix', row.judgeSameFilesAsReference, row.judgeSameFilesComputed],
    ['Test added', row.judgeTestAdded, undefined],
    ['Would compile', row.judgeWouldCompile, undefined],
  ];
  return el(
    'section',
    { class: 'rubric-box', 'aria-label': 'Rubric' },
    el('h3', {}, 'Rubric'),
    el(
      'table',
      { class: 'rubric' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col' }, 'Question'),
          el('th', { scope: 'col' }, 'Judge says'),
          el('th', { scope: 'col', title: 'Computed from the two diffs, lock files aside' }, 'Computed'),
        ),
      ),
      el(
        'tbody',
        {},
        ...rows.map(([question, claim, fact]) => {
          const disagree = fact !== undefined && fact !== null && claim !== null && fact !== claim;
          return el(
            'tr',
            { class: disagree ? 'disagree' : '', 'data-disagree': String(disagree) },
            el('th', { scope: 'row' }, question),
            el('td', { class: claim === null ? 'unknown' : '' }, yesNo(claim)),
            el(
              'td',
              { class: fact === null ? 'unknown' : '' },
              fact === undefined ? el('span', { class: 'muted' }, '—') : yesNo(fact),
              disagree
                ? el(
                    'span',
                    { class: 'disagree-mark', title: "The judge's claim and the computed fact disagree" },
                    ' ≠ disagrees',
                  )
                : null,
            ),
          );
        }),
      ),
    ),
  );
}

/** Every file either diff changes, with its +/− counts, marked: changed by both, by the candidate only, or by the fix only. */
function fileList(candidate: ParsedPatch | null, fix: ParsedPatch | null, withFix: boolean): HTMLElement | null {
  const files = new Map<string, { candidate: string | null; fix: string | null }>();
  const counts = (f: { addedLines: number; deletedLines: number }) =>
    `+${count(f.addedLines)} −${count(f.deletedLines)}`;
  for (const f of candidate?.files ?? []) files.set(filePath(f), { candidate: counts(f), fix: null });
  for (const f of fix?.files ?? []) {
    const path = filePath(f);
    files.set(path, { candidate: files.get(path)?.candidate ?? null, fix: counts(f) });
  }
  if (!files.size) return null;
  const mark = (c: string | null, f: string | null) => (c && f ? 'both' : c ? 'candidate only' : 'fix only');
  return el(
    'table',
    { class: 'files', 'aria-label': 'Files the candidate and the fix change' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'col' }, `${count(files.size)} ${files.size === 1 ? 'file' : 'files'}`),
        withFix ? el('th', { scope: 'col' }, 'changed by') : null,
        el('th', { scope: 'col', class: 'num' }, 'candidate'),
        withFix ? el('th', { scope: 'col', class: 'num' }, 'fix') : null,
      ),
    ),
    el(
      'tbody',
      {},
      ...[...files].map(([path, f]) =>
        el(
          'tr',
          { 'data-touched': withFix ? mark(f.candidate, f.fix) : 'candidate only' },
          el('td', { class: 'path' }, path),
          withFix
            ? el('td', { class: `touched ${mark(f.candidate, f.fix).replace(' ', '-')}` }, mark(f.candidate, f.fix))
            : null,
          el('td', { class: 'num' }, f.candidate ?? '—'),
          withFix ? el('td', { class: 'num' }, f.fix ?? '—') : null,
        ),
      ),
    ),
  );
}

function fieldText(key: Field, v: unknown): [string, boolean] {
  if (v === null || v === undefined) return [UNKNOWN, true];
  if (typeof v === 'number') return [UNITS[key]?.(v) ?? num(v, 2), false];
  if (typeof v === 'boolean') return [v ? 'yes' : 'no', false];
  if (typeof v === 'string' && INSTANTS.has(key)) return [instant(v), false];
  if (typeof v === 'object') return [JSON.stringify(v), false];
  return [String(v), false];
}

function fieldsTable(row: RunRow): HTMLElement {
  return el(
    'table',
    { class: 'fields' },
    ...FIELD_GROUPS.map(([group, keys]) =>
      el(
        'tbody',
        {},
        el('tr', {}, el('th', { colspan: 2, class: 'group', scope: 'colgroup' }, group)),
        ...keys.map((k) => {
          const [text, unknown] = fieldText(k, row[k]);
          return el(
            'tr',
            {},
            el('th', { scope: 'row', title: k }, fieldLabel(k)),
            el('td', { class: unknown ? 'unknown' : '' }, text),
          );
        }),
      ),
    ),
  );
}
