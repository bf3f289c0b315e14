// What a runner host sends, one factory per delivery kind, so each test states only what matters to it.
// These are wire inputs: a test may add unknown or invalid keys on purpose to see them dropped or refused.
import { randomUUID } from 'node:crypto';
import { signedHeaders } from '#shared/signature.ts';
import type * as z from '#schema/zod.ts';
import type { hiddenTestDeliverySchema, issueDeliverySchema, runDeliverySchema } from '#schema/delivery.ts';
import type { issueRecordSchema } from '#schema/issue.ts';
import { inboxEntrySchema, type InboxEntry } from '#schema/messages.ts';
import { runId, type runnerRowSchema } from '#schema/run.ts';

/** A schema's input plus whatever else a test puts on the wire. */
type Wire<T> = T & Record<string, unknown>;

export type RunnerRowInput = Wire<z.input<typeof runnerRowSchema>>;
export type IssueRecordInput = Wire<z.input<typeof issueRecordSchema>>;
export type RunDeliveryInput = Wire<Omit<z.input<typeof runDeliverySchema>, 'row'> & { row: RunnerRowInput }>;
export type IssueDeliveryInput = Wire<Omit<z.input<typeof issueDeliverySchema>, 'issue'> & { issue: IssueRecordInput }>;
export type HiddenTestDeliveryInput = z.input<typeof hiddenTestDeliverySchema>;
export type DeliveryInput = RunDeliveryInput | IssueDeliveryInput | HiddenTestDeliveryInput;

export const DEFAULT_HOST = 'mac-studio-1';

export function runnerRow(overrides: Record<string, unknown> = {}): RunnerRowInput {
  const defaults: RunnerRowInput = {
    model: 'qwen3:8b',
    taskId: 'acme__widgets-42',
    harnessVersion: 'h2',
    host: DEFAULT_HOST,
    startedAt: '2026-11-20T10:00:00Z',
    finishedAt: '2026-11-20T10:12:00Z',
    outcome: 'finished',
    steps: 17,
    wallSeconds: 720,
    hostHardware: 'Mac Studio M2 Ultra 192 GB',
  };
  return { ...defaults, ...overrides } as RunnerRowInput;
}

export function runDelivery(
  rowOverrides: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): RunDeliveryInput {
  const row = runnerRow(rowOverrides);
  return {
    kind: 'run',
    host: row.host,
    id: runId(row),
    row,
    patch:
      'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-a\n+b\n',
    patchTruncated: false,
    summary: 'Changed a to b.',
    ...extra,
  };
}

export function issueRecord(overrides: Record<string, unknown> = {}): IssueRecordInput {
  const defaults: IssueRecordInput = {
    taskId: 'acme__widgets-42',
    order: 1,
    repo: 'acme/widgets',
    issueNumber: 42,
    fixPrNumber: 43,
    tier: 'easy',
    wave: 1,
    baseSha: 'a'.repeat(40),
    mergeSha: 'b'.repeat(40),
  };
  return { ...defaults, ...overrides } as IssueRecordInput;
}

/** Sent at `sentAt` (by default a fixed instant: a later record of a test says so). */
export function issueDelivery(
  overrides: Record<string, unknown> = {},
  host = DEFAULT_HOST,
  sentAt = '2026-11-20T09:00:00.000Z',
): IssueDeliveryInput {
  return { kind: 'issue', host, sentAt, issue: issueRecord(overrides) };
}

export function hiddenTestDelivery(
  id: string,
  finishedAt: string,
  status: 'pass' | 'fail' | 'error' = 'pass',
  host = DEFAULT_HOST,
): HiddenTestDeliveryInput {
  return {
    kind: 'hidden-test',
    host,
    id,
    finishedAt,
    hiddenTestResult: { status, passed: 3, failed: 0, total: 3, ranAt: '2026-11-21T09:00:00Z' },
  };
}

/** What ingest writes to the inbox for an accepted delivery. */
export function inboxEntry(
  space: string,
  delivery: DeliveryInput,
  options: { deliveryId?: string; receivedAt?: string } = {},
): InboxEntry {
  return inboxEntrySchema.parse({
    space,
    deliveryId: options.deliveryId ?? 'd-1',
    receivedAt: options.receivedAt ?? '2026-11-29T11:00:00.000Z',
    host: delivery.host,
    delivery,
  });
}

/**
 * The headers replay-push sends with `raw` to `space`: signed (v2) with `key` at `at` (by default now; a test whose
 * ingest reads a settable clock passes that clock's time), under a fresh delivery id unless one is given.
 */
export function signedDeliveryHeaders(
  space: string,
  raw: Uint8Array | string,
  key: string,
  options: { deliveryId?: string; at?: Date } = {},
): Record<string, string> {
  const timestamp = Math.floor((options.at ?? new Date()).getTime() / 1000);
  return {
    'content-type': 'application/json',
    ...signedHeaders(raw, key, { space, deliveryId: options.deliveryId ?? randomUUID(), timestamp }),
  };
}
