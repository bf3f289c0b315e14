// The sentence a reader can quote, with a button that copies it (docs/contract.md §6 "A sentence to quote"), and the
// Holm clause it carries when the pair is one of several compared at once.
import type { Group } from '#analytics/run-grouping.ts';
import type { AllPairs } from '#analytics/all-pairs.ts';
import type { HolmClause } from '#analytics/comparison-sentence.ts';
import { pAtFloor } from '#analytics/compare-groups.ts';
import { el } from '../widgets/dom.ts';

const same = (x: Group, y: Group) => x.model === y.model && x.harnessVersion === y.harnessVersion;

/** The pair's Holm-adjusted p over the pairs of the configurations in view, when it is among them. */
export function holmOf(found: AllPairs, a: Group, b: Group): HolmClause | null {
  const row = found.rows.find((r) => (same(r.a, a) && same(r.b, b)) || (same(r.a, b) && same(r.b, a)));
  return row?.holmP === null || row === undefined
    ? null
    : { pairs: found.compared, holmP: row.holmP, bound: pAtFloor(row) };
}

export function quoteSentence(sentence: string): HTMLElement {
  const status = el('span', { class: 'copy-status muted', id: 'copy-status', role: 'status' });
  const copy = el('button', { type: 'button', class: 'chip-toggle copy-button', id: 'copy-sentence' }, 'Copy');
  copy.addEventListener('click', () => {
    navigator.clipboard.writeText(sentence).then(
      () => (status.textContent = 'Copied to the clipboard.'),
      (e: unknown) => (status.textContent = `Could not copy: ${(e as Error).message}. Select the sentence instead.`),
    );
  });
  return el(
    'div',
    { class: 'quote' },
    el('p', { class: 'compare-sentence', id: 'compare-sentence' }, sentence),
    el('span', { class: 'quote-actions' }, copy, status),
  );
}
