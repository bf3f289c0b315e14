// The judge against the hidden tests: runs by verdict (rows) and hidden-test result (columns), and the 2×2 table
// (judge resolved or not × tests pass or fail) with Cohen's κ and its interval. Every count is a link to the
// Runs view filtered to exactly those runs.
import type { Card, CardCsv } from './card.ts';
import { calibration } from '#analytics/calibration.ts';
import { type HiddenColumn } from '#analytics/rate-figures.ts';
import { kappaText } from './kappa-text.ts';
import { el, fill } from '../widgets/dom.ts';
import { count } from '../widgets/format.ts';
import { percentOf } from '../widgets/intervals.ts';
import {
  HIDDEN_TEST_LABELS,
  VERDICT_COLOURS,
  VERDICT_LABELS,
  VERDICT_ORDER,
  type VerdictKey,
} from '../widgets/palette.ts';
import { HIDDEN_TEST_COLUMNS } from '../page/url-state.ts';
import type { Computed } from '../page/view-model.ts';

/** Verdicts and hidden-test results a count stands for. */
export type RunsOutcome = { verdicts: VerdictKey[]; hiddenTests: HiddenColumn[] };

export interface CalibrationNav {
  /** The Runs area, filtered to these verdicts and hidden-test results on top of the filters in view. */
  openRuns(outcome: RunsOutcome): void;
  /** The address of that view, so a count is a real link (a new tab, a copied link). */
  runsHref(outcome: RunsOutcome): string;
}

const NOT_RESOLVED: VerdictKey[] = ['partial', 'wrong', 'no_change'];

const runsCount = (n: number, what: string) => `${count(n)} ${what} run${n === 1 ? '' : 's'}`;

export function renderCalibration(c: Pick<Card, 'body' | 'foot'>, m: Computed, nav: CalibrationNav): CardCsv {
  const cal = calibration(m.table, m.selection);
  const csv: CardCsv = () => ({
    columns: ['judgeVerdict', 'hiddenTests', 'runs'],
    rows: VERDICT_ORDER.flatMap((v) => HIDDEN_TEST_COLUMNS.map((test) => [v, test, cal.counts[v][test]])),
  });
  const k = cal.kappa;
  const t = k.table;
  const link = (n: number, outcome: RunsOutcome, what: string, data: Record<string, string>) => {
    if (!n) return el('td', { class: 'num zero' }, '0');
    const a = el(
      'a',
      {
        href: nav.runsHref(outcome),
        class: 'cal-link',
        ...data,
        'aria-label': `${count(n)} runs ${what}: list them`,
      },
      count(n),
    );
    a.addEventListener('click', (e) => {
      if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
      e.preventDefault();
      nav.openRuns(outcome);
    });
    return el('td', { class: 'num' }, a);
  };
  const cell = (v: VerdictKey, test: HiddenColumn) =>
    link(
      cal.counts[v][test],
      { verdicts: [v], hiddenTests: [test] },
      `judged ${VERDICT_LABELS[v]} with ${HIDDEN_TEST_LABELS[test]}`,
      { 'data-verdict': v, 'data-tests': test },
    );
  const twoByTwo = (n: number, verdicts: VerdictKey[], test: 'pass' | 'fail', cellName: string) =>
    link(
      n,
      { verdicts, hiddenTests: [test] },
      `judged ${verdicts.length > 1 ? 'not resolved' : 'resolved'} with ${HIDDEN_TEST_LABELS[test]}`,
      { 'data-cell': cellName },
    );
  const kappaBox = el(
    'div',
    { class: 'kappa-box', id: 'kappa' },
    el('h3', {}, 'Agreement beyond chance (Cohen’s κ)'),
    el(
      'table',
      { class: 'figures kappa-table', 'aria-label': 'Runs with a counted verdict and a pass or fail hidden test' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { class: 'text' }, 'judge \\ tests'),
          el('th', { scope: 'col', class: 'num' }, 'pass'),
          el('th', { scope: 'col', class: 'num' }, 'fail'),
        ),
      ),
      el(
        'tbody',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'row', class: 'text' }, 'resolved'),
          twoByTwo(t.resolvedPass, ['resolved'], 'pass', 'resolved-pass'),
          twoByTwo(t.resolvedFail, ['resolved'], 'fail', 'resolved-fail'),
        ),
        el(
          'tr',
          {},
          el('th', { scope: 'row', class: 'text' }, 'not resolved'),
          twoByTwo(t.otherPass, NOT_RESOLVED, 'pass', 'other-pass'),
          twoByTwo(t.otherFail, NOT_RESOLVED, 'fail', 'other-fail'),
        ),
      ),
    ),
    el('p', { class: 'kappa-figure', id: 'kappa-figure' }, kappaText(k)),
    el(
      'p',
      { class: 'kappa-flagged', id: 'kappa-flagged' },
      ...(cal.flagged
        ? [
            el(
              'a',
              { href: nav.runsHref({ verdicts: ['flagged'], hiddenTests: [] }) },
              runsCount(cal.flagged, 'flagged'),
            ),
            `${cal.flagged === 1 ? ' is' : ' are'} left out of κ: the judge said “resolved”, a check withheld it, ` +
              'so there is no verdict to compare.',
          ]
        : ['No flagged run is left out of κ.']),
    ),
    el(
      'p',
      { class: 'muted' },
      '“Not resolved” is partial, wrong or no change. κ = 1: they always agree; 0: no better ' +
        'than chance. Resolved with tests fail, and not resolved with tests pass, are the disagreements.',
    ),
  );
  fill(
    c.body,
    el(
      'table',
      { class: 'figures calibration' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { class: 'text' }, 'judge \\ tests'),
          ...HIDDEN_TEST_COLUMNS.map((test) =>
            el('th', { scope: 'col', class: 'num' }, test === 'none' ? 'no result' : test),
          ),
        ),
      ),
      el(
        'tbody',
        {},
        ...VERDICT_ORDER.map((v) =>
          el(
            'tr',
            {},
            el(
              'th',
              { scope: 'row' },
              el('span', { class: 'swatch', style: `background:${VERDICT_COLOURS[v]}` }),
              VERDICT_LABELS[v],
            ),
            ...HIDDEN_TEST_COLUMNS.map((test) => cell(v, test)),
          ),
        ),
      ),
    ),
    el(
      'p',
      { class: 'agreement' },
      cal.agreement.n > 0
        ? `Judge and hidden tests agree on ${percentOf(cal.agreement)} of runs that have both (resolved ⇔ pass).`
        : 'No run in view has both a verdict and a hidden-test result: there is no agreement to measure.',
    ),
    kappaBox,
  );
  fill(c.foot, 'The judge is a model; hidden tests are the objective check.');
  return csv;
}
