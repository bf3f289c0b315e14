// The task's samples by this configuration (docs/contract.md §2 "sample"): every run of the same model, task and
// harness version in the space, by sample number, each with its verdict and hidden-test result and a link to it;
// the run shown is marked. Left out when the run is the task's only sample.
import type { HiddenTestStatus } from '#analytics/columns.ts';
import type { VerdictKey } from '#analytics/result-filters.ts';
import { el } from '../widgets/dom.ts';
import { count } from '../widgets/format.ts';
import { VERDICT_COLOURS, VERDICT_LABELS } from '../widgets/palette.ts';

export interface TaskSample {
  id: string;
  sample: number;
  verdict: VerdictKey;
  hiddenTest: HiddenTestStatus | null;
}

export function sampleList(
  samples: TaskSample[],
  shown: string,
  runLink: (id: string, text: string) => HTMLElement,
): HTMLElement | null {
  if (samples.length < 2) return null;
  return el(
    'section',
    { class: 'samples', id: 'run-samples' },
    el('h3', {}, `Samples of this task (${count(samples.length)})`),
    el(
      'table',
      { class: 'attempt-list', 'aria-label': 'Every sample of this task by this configuration' },
      el('thead', {}, el('tr', {}, ...['Sample', 'Verdict', 'Hidden tests'].map((h) => el('th', { scope: 'col' }, h)))),
      el(
        'tbody',
        {},
        ...samples.map((s) =>
          el(
            'tr',
            { class: s.id === shown ? 'current' : '', 'data-sample': s.sample },
            el(
              'td',
              {},
              s.id === shown
                ? el('strong', { 'aria-current': 'page' }, `sample ${s.sample} (this run)`)
                : runLink(s.id, `sample ${s.sample}`),
            ),
            el(
              'td',
              {},
              el('span', { class: 'chip', style: `--chip:${VERDICT_COLOURS[s.verdict]}` }, VERDICT_LABELS[s.verdict]),
            ),
            el('td', {}, s.hiddenTest ?? 'no result'),
          ),
        ),
      ),
    ),
  );
}
