import type { RunTable } from '#analytics/run-table.ts';
import type { TaskFacts } from '#analytics/run-selection.ts';

export interface FilterOptions {
  models: string[];
  harnessVersions: string[];
  repos: string[];
  waves: number[];
}

/** What the filter bar offers: every model, harness version and repository of the runs, every wave of runs or tasks. */
export function filterOptions(table: RunTable, facts: TaskFacts): FilterOptions {
  const waves = new Set<number>();
  for (let i = 0; i < table.size; i++) {
    const w = table.numbers.wave[i]!;
    if (!Number.isNaN(w)) waves.add(w);
  }
  facts.wave.forEach((w) => Number.isNaN(w) || waves.add(w));
  const sorted = (xs: string[]) => [...xs].sort((a, b) => a.localeCompare(b));
  return {
    models: sorted(table.dictionaries.model.values),
    harnessVersions: sorted(table.dictionaries.harnessVersion.values),
    repos: sorted(table.dictionaries.repo.values),
    waves: [...waves].sort((a, b) => a - b),
  };
}
