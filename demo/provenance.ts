// Where each field of a demo campaign came from, counted while the campaign is built, so the demo's banner
// says what this campaign really holds (which fields are real, which generated, which unknown, and for how
// many runs or tasks) instead of a fixed sentence that could drift from the code.

export type Origin = 'real' | 'generated' | 'unknown';
export type Unit = 'runs' | 'tasks';

const ORIGIN_LABELS: Record<Origin, string> = {
  real: 'Real',
  generated: 'Generated',
  unknown: 'Unknown (null)',
};

export class Provenance {
  /** origin → unit → field → how many runs or tasks; insertion order is the banner's order. */
  private readonly counts = new Map<Origin, Map<Unit, Map<string, number>>>();

  note(origin: Origin, unit: Unit, field: string): void {
    let units = this.counts.get(origin);
    if (!units) this.counts.set(origin, (units = new Map()));
    let fields = units.get(unit);
    if (!fields) units.set(unit, (fields = new Map()));
    fields.set(field, (fields.get(field) ?? 0) + 1);
  }

  count(origin: Origin, unit: Unit, field: string): number {
    return this.counts.get(origin)?.get(unit)?.get(field) ?? 0;
  }

  /** One line per origin: "Real: candidate patch (480 runs), …; original fix (120 tasks), …". */
  lines(): string[] {
    return (['real', 'generated', 'unknown'] as const).flatMap((origin) => {
      const units = this.counts.get(origin);
      if (!units) return [];
      const parts = [...units].map(([unit, fields]) =>
        [...fields].map(([field, n]) => `${field} (${n} ${n === 1 ? unit.slice(0, -1) : unit})`).join(', '),
      );
      return [`${ORIGIN_LABELS[origin]}: ${parts.join('; ')}.`];
    });
  }
}
