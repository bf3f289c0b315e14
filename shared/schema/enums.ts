// The enumerations of the records, as plain constants: the zod schemas build on them, and the cockpit's
// columnar codes index into them without bundling zod. The order is part of the columnar wire format.
export const TIERS = ['easy', 'medium', 'hard'] as const;
export const OUTCOMES = ['finished', 'budget', 'model-error'] as const;
// After the three of replay-run/1 come the imported formats, each as `<format>/<version of its layout read>`
// (docs/contract.md §7, "Importing").
export const METRICS_SOURCES = [
  'trajectory',
  'result-only',
  'generated',
  'swe-bench/1',
  'swe-agent/1',
  'mini-swe-agent/1',
  'openhands/1',
  'inspect/2',
  'terminal-bench/1',
  'harbor/1',
] as const;
export const VERDICTS = ['resolved', 'partial', 'wrong', 'no_change', 'error', 'excluded'] as const;
export const JUDGE_STATES = [
  'pending',
  'waiting-credentials',
  'waiting-budget',
  'waiting-issue',
  'retry-scheduled',
  'paused',
  'judged',
  'error',
  'not-needed',
  'flagged',
  'waiting-github',
  'waiting-batch',
] as const;
export const HIDDEN_TEST_STATUSES = ['pass', 'fail', 'error'] as const;
