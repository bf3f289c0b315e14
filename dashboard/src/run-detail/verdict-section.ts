// The verdict the run counts by and where it comes from, the judge's reasons, its flags and the
// contamination the runner reported; beside them, the judge's rubric with the facts computed from the diffs.
import type { RunRow } from '#schema/run.ts';
import { flagDescription } from '#analytics/flag-rules.ts';
import { agreementOfRun } from '#analytics/agreement.ts';
import { el } from '../widgets/dom.ts';
import { instant, UNKNOWN } from '../widgets/format.ts';
import { VERDICT_COLOURS, VERDICT_LABELS } from '../widgets/palette.ts';

export function verdictSection(row: RunRow): HTMLElement {
  return el(
    'section',
    { class: 'verdict-box', 'aria-label': 'Verdict' },
    verdictLine(row),
    row.judgeReason
      ? el('p', { class: 'reason' }, row.judgeReason)
      : el('p', { class: 'muted' }, 'No reasons: not judged by a model (yet).'),
    row.judgeLastError
      ? el('p', { class: 'error' }, `Last judge error (${row.judgeLastError.code}): ${row.judgeLastError.message}`)
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
  const verdict = row.judgeState === 'flagged' ? 'flagged' : (row.judgeVerdict ?? 'unjudged');
  const judgeChip = el('span', { class: 'chip', style: `--chip:${VERDICT_COLOURS[verdict]}` }, VERDICT_LABELS[verdict]);
  const by = `${row.judgeModel ? ` by ${row.judgeModel}` : ''}${row.judgedAt ? ` · ${instant(row.judgedAt)}` : ''}`;
  const status = row.hiddenTestResult?.status;
  if (status === 'pass' || status === 'fail') {
    const passed = status === 'pass';
    // As the judge × tests table counts it: only a counted verdict agrees or disagrees (not excluded, not error).
    const agreement = agreementOfRun(row);
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
        agreement && el('strong', { class: agreement === 'agree' ? '' : 'disagree-mark' }, ` · ${agreement}s`),
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
export function rubricTable(row: RunRow): HTMLElement {
  const rows: [string, boolean | null, boolean | null | undefined][] = [
    ['Root cause found', row.judgeRootCauseFound, undefined],
    ['Same files as the fix', row.judgeSameFilesAsReference, row.judgeSameFilesComputed],
    ['Test added', row.judgeTestAdded, row.judgeTestAddedComputed],
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
          el(
            'th',
            {
              scope: 'col',
              title: 'Computed from the diffs: the two, lock files aside, or the candidate’s own test files',
            },
            'Computed',
          ),
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
