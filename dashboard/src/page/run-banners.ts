// The banners above the areas about the runs in view: harness versions never pooled, and generated figures.
// One line each, the full sentence on demand: together they keep to a tenth of a laptop's screen.
import { el } from '../widgets/dom.ts';
import { count } from '../widgets/format.ts';
import type { Computed } from './view-model.ts';

export function runBanners(m: Computed): (HTMLElement | false)[] {
  const versions = m.figures.harnessVersions;
  const generated = m.figures.all.generated;
  const banner = (id: string, kind: string, line: string, full: string) =>
    el('details', { class: `banner ${kind}`, id, role: 'status' }, el('summary', {}, line), el('p', {}, full));
  return [
    versions.length > 1 &&
      banner(
        'harness-warning',
        'warn',
        `⚠ ${versions.length} harness versions in view: their runs are never pooled`,
        `The versions: ${versions.join(', ')}. Each model appears once per harness version. ` +
          'Filter to one harness version to compare models like for like.',
      ),
    generated > 0 &&
      banner(
        'generated-note',
        'generated',
        `◇ ${count(generated)} of ${count(m.selection.length)} runs in view carry generated figures`,
        'Their metricsSource is "generated" (demo data): those figures were generated, not measured. ' +
          "The project's data/README.md says which fields are real.",
      ),
  ];
}
