// The enumerations of the records, as plain constants: the zod schemas build on them, and the cockpit's
// columnar codes index into them without bundling zod. The order is part of the columnar wire format.
export const TIERS = ['easy', 'medium', 'hard'] as const;
export const OUTCOMES = ['finished', 'budget', 'model-error'] as const;
export const METRICS_SOURCES = ['trajectory', 'result-only', 'generated'] as const;
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
] as const;
export const HIDDEN_TEST_STATUSES = ['pass', 'fail', 'error'] as const;
