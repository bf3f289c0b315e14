// Factories for deliveries and rows, so each test states only what matters to it.
import { runId, type RunnerRow } from '../../shared/schema/run.ts';

export type RunRowInput = Record<string, unknown>;

export function runnerRow(overrides: RunRowInput = {}): Record<string, unknown> {
  return {
    model: 'qwen3:8b',
    taskId: 'acme__widgets-42',
    harnessVersion: 'h2',
    host: 'mac-studio-1',
    startedAt: '2026-11-20T10:00:00Z',
    finishedAt: '2026-11-20T10:12:00Z',
    outcome: 'finished',
    steps: 17,
    wallSeconds: 720,
    hostHardware: 'Mac Studio M2 Ultra 192 GB',
    ...overrides,
  };
}

export function runDelivery(rowOverrides: RunRowInput = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const row = runnerRow(rowOverrides);
  return {
    kind: 'run',
    host: row.host,
    id: runId(row as unknown as RunnerRow),
    row,
    patch: 'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-a\n+b\n',
    patchTruncated: false,
    summary: 'Changed a to b.',
    ...extra,
  };
}

export function issueDelivery(overrides: Record<string, unknown> = {}, host = 'mac-studio-1'): Record<string, unknown> {
  return {
    kind: 'issue',
    host,
    issue: {
      taskId: 'acme__widgets-42',
      order: 1,
      repo: 'acme/widgets',
      issueNumber: 42,
      fixPrNumber: 43,
      tier: 'easy',
      wave: 1,
      baseSha: 'a'.repeat(40),
      mergeSha: 'b'.repeat(40),
      ...overrides,
    },
  };
}

export function hiddenTestDelivery(id: string, finishedAt: string, status: 'pass' | 'fail' | 'error' = 'pass', host = 'mac-studio-1') {
  return { kind: 'hidden-test', host, id, finishedAt, hiddenTestResult: { status, passed: 3, failed: 0, total: 3, ranAt: '2026-11-21T09:00:00Z' } };
}
