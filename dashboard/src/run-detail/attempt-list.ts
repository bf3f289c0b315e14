import type { AttemptSummary } from '#schema/attempt.ts';
import { el } from '../widgets/dom.ts';
import { count, duration, instant, NO_PATCH_SHA256, num, UNKNOWN } from '../widgets/format.ts';
import { VERDICT_COLOURS, VERDICT_LABELS } from '../widgets/palette.ts';

/**
 * Every attempt of the run, newest first as the API lists them, with its verdict and hidden-test result;
 * the row's own attempt is marked. An earlier attempt's patch differs (its sha-256 prefix says so).
 */
export function attemptList(attempts: AttemptSummary[]): HTMLElement {
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
          const verdict = a.judgeState === 'flagged' ? 'flagged' : (a.judgeVerdict ?? 'unjudged');
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
                : a.foreign
                  ? el(
                      'span',
                      {
                        class: 'muted',
                        title: `Sent by ${a.host}, which does not own this run: kept apart, never judged`,
                      },
                      'foreign',
                    )
                  : a.collision
                    ? el(
                        'span',
                        {
                          class: 'muted',
                          title: `Another run under this id (model ${a.model}, task ${a.taskId}, harness ${a.harnessVersion}): kept apart, never judged`,
                        },
                        'collision',
                      )
                    : a.conflict
                      ? el(
                          'span',
                          {
                            class: 'muted',
                            title:
                              'Another patch for a finish time whose first accepted patch is current: never judged',
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
            a.patchSha256 === NO_PATCH_SHA256
              ? el('td', { title: 'No patch: the run sent none, or an empty one' }, 'none')
              : el('td', { class: 'mono', title: `patch sha-256 ${a.patchSha256}` }, a.patchSha256.slice(0, 8)),
          );
        }),
      ),
    ),
  );
}
