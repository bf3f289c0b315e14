// The outcome switch of the filter bar, "Outcome: hidden tests | judge": which check every figure that says
// "resolved" counts on. Unchosen, it shows the default of the view (tests when any run in view has a pass or
// fail hidden test) and says so.
import { OUTCOME_LABELS, RESOLVE_OUTCOMES, type ResolveOutcome } from '#analytics/statistics.ts';
import { el } from '../widgets/dom.ts';

export class OutcomeSwitch {
  private readonly buttons = RESOLVE_OUTCOMES.map((outcome) =>
    el(
      'button',
      { type: 'button', class: 'chip-toggle', 'aria-pressed': 'false', 'data-outcome': outcome },
      OUTCOME_LABELS[outcome],
    ),
  );
  private readonly note = el('span', { class: 'muted outcome-note' });
  readonly root = el(
    'span',
    { class: 'outcome-switch', role: 'group', 'aria-label': 'Outcome that says resolved', id: 'outcome-switch' },
    el('span', { class: 'muted' }, 'Outcome:'),
    ...this.buttons,
    this.note,
  );

  constructor(choose: (outcome: ResolveOutcome) => void) {
    this.buttons.forEach((b, k) => b.addEventListener('click', () => choose(RESOLVE_OUTCOMES[k]!)));
  }

  render(outcome: ResolveOutcome, chosen: boolean): void {
    this.buttons.forEach((b, k) => {
      const on = String(RESOLVE_OUTCOMES[k] === outcome);
      if (b.getAttribute('aria-pressed') !== on) b.setAttribute('aria-pressed', on);
    });
    const note = chosen ? '' : outcome === 'tests' ? '(default: tests in view)' : '(default: no tests in view)';
    if (this.note.textContent !== note) this.note.textContent = note;
  }
}
