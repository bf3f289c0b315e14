// The candidate's patch beside the original fix (as the judge cached it, lock files left out; never the
// issue text), each laid out by diff2html, unified or split, under one list of the files either changes.
import { apiPaths, type ReferenceBody } from '#analytics/contract.ts';
import type { RunRow } from '#schema/run.ts';
import type { Api } from '../page/api.ts';
import { el, fill } from '../widgets/dom.ts';
import { count } from '../widgets/format.ts';
import { filePath, patchView, type ParsedPatch, type PatchLayout } from './patch-view.ts';

/** The original fix as the API answered: its body, why it is missing, or null when the cockpit may not show it. */
export type ReferenceResult = { body: ReferenceBody } | { missing: string } | null;

export interface PatchComparisonOptions {
  api: Api;
  space: string;
  /** Unified or split: the layout to start with, and where the reader's choice is kept. */
  layout: PatchLayout;
  onLayout: (layout: PatchLayout) => void;
}

export function patchComparison(
  { api, space, layout: initialLayout, onLayout }: PatchComparisonOptions,
  row: RunRow,
  candidate: ParsedPatch | null,
  noPatch: boolean,
  reference: ReferenceResult,
  fix: ParsedPatch | null,
): HTMLElement {
  let layout = initialLayout;
  const pair = el('div', { class: reference ? 'diff-pair' : 'diff-single' });
  const toggles = (['line-by-line', 'side-by-side'] as const).map((choice) => {
    const b = el(
      'button',
      { type: 'button', class: 'chip-toggle', 'aria-pressed': String(choice === layout), 'data-layout': choice },
      choice === 'line-by-line' ? 'Unified' : 'Split',
    );
    b.addEventListener('click', () => {
      layout = choice;
      onLayout(choice);
      toggles.forEach((t) => t.setAttribute('aria-pressed', String(t === b)));
      render();
    });
    return b;
  });
  const full = (path: string, text: string) => {
    const href = api.url(path);
    if (!api.signedIn) return el('a', { href, target: '_blank', rel: 'noopener' }, text);
    const b = el('button', { type: 'button', class: 'link' }, text);
    b.addEventListener('click', () => void api.download(href, `${row.id}.diff`));
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
          ? patchView(candidate, 'Candidate patch', layout, full(apiPaths.patch(space, row.id), 'The whole patch'))
          : el(
              'p',
              { class: 'muted', id: 'candidate-none' },
              // A missing object says nothing about what the run changed; only an empty patch does.
              noPatch ? 'No patch is stored for this run.' : 'The patch is empty: the run changed nothing.',
            ),
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
                ? patchView(fix, 'Original fix', layout, full(apiPaths.reference(space, row.id), 'The whole fix'))
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
