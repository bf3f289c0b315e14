// What engine mode leaves out (docs/contract.md §6 "Reading at scale"), apart from the page so a test can read it.

/** The browser-mode cards the engine does not answer yet: named on the page, never drawn from part of the runs. */
export const CARDS_WITHOUT_ENGINE = [
  'Verdict mix',
  'Median wall time',
  'Output tokens per minute',
  'Steps and budget exhaustion',
  'Wall time against completion tokens',
  'Model time next to the original fix',
  'Resolve rate by tier, difficulty and wave',
  'Resolve rate by repository',
  'Judge against hidden tests',
  'The model × issue matrix',
];
