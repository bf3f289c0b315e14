// Everything ingest accepts can be stored (docs/contract.md §3): a property over every figure of every record kind, and
// over identity strings with lone surrogates in them, landed against the real table and buckets. A delivery
// parseDelivery accepts must land, and give back the figures it carried; one it refuses names the field.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseDelivery } from '#core/ingest/accept-delivery.ts';
import { landEntry } from '#core/landing/land.ts';
import type { JudgeMessage } from '#core/ports.ts';
import { hiddenTestDelivery, inboxEntry, issueDelivery, runDelivery } from '../helpers/deliveries.ts';
import { landingDepsOf, startTestStores, type TestStores } from '../helpers/emulators.ts';
import { RecordingQueue } from '../helpers/in-memory-ports.ts';

let t: TestStores;
beforeAll(async () => {
  t = await startTestStores();
});
afterAll(() => t.stop());

const deps = () =>
  landingDepsOf(t, { now: () => new Date('2026-11-29T12:00:00.000Z') }, new RecordingQueue<JudgeMessage>());

/** Any JSON number, weighted towards the edges of what a table stores. */
const figure = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: 0, max: 2 ** 31 }),
  fc.constantFrom(0, -0, 1e-130, 9.9e-131, 1e-200, 5e-324, 2 ** 53 - 1, 2 ** 53, 1e16, 1e125, 1.5, 0.1),
);
const figures = (names: readonly string[]) =>
  fc.record(Object.fromEntries(names.map((n) => [n, fc.option(figure, { nil: undefined })])), {
    requiredKeys: [],
  });

/** Printable text with, now and then, half of a surrogate pair on its own (JSON can carry one as `\ud800`). */
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
const identityText = fc
  .array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom('a', 'z', '7', '-', '.', 'é', '😀') }, loneSurrogate), {
    minLength: 1,
    maxLength: 12,
  })
  .map((parts) => parts.join(''));
const identities = fc.record({ model: identityText, taskId: identityText, harnessVersion: identityText });

const RUN_FIGURES = [
  'wallSeconds',
  'wallBudgetSeconds',
  'medianCallSeconds',
  'medianCallOutputTokensPerSecond',
  'medianStepSeconds',
  'promptTokensPerSecond',
  'generationTokensPerSecond',
  'outputTokensPerMinute',
  'steps',
  'promptTokens',
  'completionTokens',
  'contextWindow',
  'issueNumber',
] as const;
const ISSUE_FIGURES = ['order', 'issueToMergeHours', 'prToMergeHours', 'codeLinesChanged', 'commits'] as const;
const HIDDEN_FIGURES = ['passed', 'failed', 'total'] as const;

/** Parses as ingest does; an accepted delivery is landed and must succeed. */
async function acceptThenLand(delivery: Record<string, unknown>, n: number) {
  const parsed = parseDelivery(Buffer.from(JSON.stringify(delivery)), 'mac-studio-1');
  if (!parsed.ok) {
    expect(parsed.details.length).toBeGreaterThan(0);
    return null;
  }
  if (!('delivery' in parsed)) throw new Error('A record delivery parsed as a check.');
  await landEntry(deps(), inboxEntry('figures', parsed.delivery, { deliveryId: `d-${n}` }));
  return parsed.delivery;
}

let n = 0;

describe('every record ingest accepts', () => {
  it('lands a run with any accepted figures, and reads them back unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(figures(RUN_FIGURES), async (values) => {
        const delivery = runDelivery({ taskId: `run-${++n}`, ...values });
        const accepted = await acceptThenLand(delivery, n);
        if (accepted?.kind !== 'run') return;
        const row = (await t.store.getRun('figures', accepted.id))!.value as unknown as Record<string, unknown>;
        for (const name of RUN_FIGURES) expect(row[name]).toBe((accepted.row as Record<string, unknown>)[name]);
      }),
      { numRuns: 60 },
    );
  });

  it('lands an issue record with any accepted figures', async () => {
    await fc.assert(
      fc.asyncProperty(figures(ISSUE_FIGURES), async (values) => {
        const accepted = await acceptThenLand(issueDelivery({ taskId: `issue-${++n}`, ...values }), n);
        if (accepted?.kind !== 'issue') return;
        const stored = (await t.store.getIssue('figures', accepted.issue.taskId)) as unknown as Record<string, unknown>;
        for (const name of ISSUE_FIGURES) expect(stored[name]).toBe(accepted.issue[name]);
      }),
      { numRuns: 40 },
    );
  });

  it('lands a run whose model, task id and harness version may hold lone surrogates, or names the field', async () => {
    await fc.assert(
      fc.asyncProperty(identities, async ({ model, taskId, harnessVersion }) => {
        const delivery = runDelivery({ model, taskId: `${taskId}-${++n}`, harnessVersion });
        const accepted = await acceptThenLand(delivery, n);
        if (accepted?.kind !== 'run') return;
        const row = (await t.store.getRun('figures', accepted.id))!.value;
        expect([row.model, row.taskId, row.harnessVersion]).toEqual([
          accepted.row.model,
          accepted.row.taskId,
          accepted.row.harnessVersion,
        ]);
      }),
      { numRuns: 60 },
    );
  });

  it('lands (or holds) a hidden-test result with any accepted figures', async () => {
    await fc.assert(
      fc.asyncProperty(figures(HIDDEN_FIGURES), async (values) => {
        const base = hiddenTestDelivery(`held-${++n}`, '2026-11-20T10:12:00Z');
        await acceptThenLand({ ...base, hiddenTestResult: { ...base.hiddenTestResult, ...values } }, n);
      }),
      { numRuns: 40 },
    );
  });
});
