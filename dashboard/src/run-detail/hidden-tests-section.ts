// The hidden-test result of a run: its status and counts, how it was made, and the tests it names.
import type { RunRow } from '#schema/run.ts';
import { el } from '../widgets/dom.ts';
import { count, instant, UNKNOWN } from '../widgets/format.ts';

type HiddenTestResult = RunRow['hiddenTestResult'];

export function hiddenTestsSection(test: HiddenTestResult): HTMLElement {
  return el(
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
  );
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
