// A cockpit-side run (the columnar projection) with plausible figures; tests override what matters to them.
import type { CompactRun } from '#analytics/columns.ts';

let serial = 0;

export function compactRunOf(overrides: Partial<CompactRun> = {}): CompactRun {
  return {
    model: 'qwen3:8b',
    taskId: `task-${++serial}`,
    harnessVersion: 'h1',
    host: 'mac-studio-1',
    repo: 'acme/widgets',
    tier: 'easy',
    outcome: 'finished',
    verdict: 'resolved',
    firstVerdict: 'resolved',
    judgeState: 'judged',
    hiddenTest: null,
    metricsSource: 'trajectory',
    sample: 1,
    finishedAt: 1_760_000_000,
    wave: 1,
    wallSeconds: 600,
    steps: 20,
    maxSteps: 50,
    wallBudgetSeconds: 3600,
    promptTokens: 100_000,
    completionTokens: 4_000,
    costUsd: null,
    outputTokensPerMinute: 400,
    patchFilesChanged: 1,
    patchLinesAdded: 3,
    patchLinesRemoved: 1,
    contamination: 0,
    attemptCount: 1,
    conflicts: 0,
    foreign: 0,
    judgeCostUsd: null,
    landedAt: 1_760_000_600,
    ...overrides,
  };
}
