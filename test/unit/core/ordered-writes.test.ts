// Every record's write is ordered and idempotent (docs/contract.md §4, §5), against in-memory ports: a hidden-test
// result replaces another only when it ran later, an issue record only when it was sent later, and a verdict belongs
// to (run, patch, judge model), so a patch judged once is never paid for again.
import { describe, expect, it } from '@jest/globals';
import { judgeRun, type JudgeDeps } from '#core/judge/judge-run.ts';
import { landEntry, type LandingDeps } from '#core/landing/land.ts';
import { readRunTexts } from '#core/run-texts.ts';
import type { JudgeMessage } from '#core/ports.ts';
import { parseConfig } from '#schema/config.ts';
import { hiddenTestDelivery, inboxEntry, issueDelivery, runDelivery } from '../../helpers/deliveries.ts';
import { InMemoryObjectStore, InMemoryTable, RecordingQueue, SettableClock } from '../../helpers/in-memory-ports.ts';
import { InMemoryReferenceSource, ScriptedJudgeModel } from '../../helpers/in-memory-judge-ports.ts';
import { goodAnswer } from '../../helpers/judge.ts';

const F = '2026-11-20T10:12:00.000Z';
const EARLY = '2026-11-21T09:00:00.000Z';
const LATE = '2026-11-21T10:00:00.000Z';

function world() {
  const table = new InMemoryTable();
  const objects = new InMemoryObjectStore();
  const judgeQueue = new RecordingQueue<JudgeMessage>();
  const clock = new SettableClock(new Date('2026-11-29T12:00:00.000Z'));
  const landing: LandingDeps = {
    runs: table,
    attempts: table,
    issues: table,
    hosts: table,
    objects,
    inbox: new InMemoryObjectStore(),
    judgeQueue,
    clock,
  };
  let n = 0;
  const land = (delivery: Record<string, unknown>, receivedAt?: string) =>
    landEntry(landing, inboxEntry('S', delivery as never, { deliveryId: `d-${++n}`, receivedAt }));
  return { table, objects, judgeQueue, clock, land };
}

const ranAt = (delivery: ReturnType<typeof hiddenTestDelivery>, at: string, status: 'pass' | 'fail') => ({
  ...delivery,
  hiddenTestResult: { ...delivery.hiddenTestResult, status, ranAt: at },
});

describe('hidden-test results', () => {
  const run = runDelivery();
  const result = (at: string, status: 'pass' | 'fail', finishedAt = F) =>
    ranAt(hiddenTestDelivery(run.id, finishedAt), at, status);

  it('replace the run’s result only when they ran later; an older one arriving last changes nothing', async () => {
    const w = world();
    await w.land(run);
    expect(await w.land(result(LATE, 'pass'))).toBe('hidden-test-applied');
    const before = await w.table.getRun('S', run.id);
    expect(await w.land(result(EARLY, 'fail'))).toBe('hidden-test-ignored');
    expect(await w.table.getRun('S', run.id)).toEqual(before);
    // Of two that ran at the same instant, the first stays.
    expect(await w.land(result(LATE, 'fail'))).toBe('hidden-test-ignored');
    expect((await w.table.getRun('S', run.id))!.value.hiddenTestResult).toMatchObject({ status: 'pass' });
  });

  it('held before their run, keep the one that ran latest whatever the order they arrive in', async () => {
    const w = world();
    await w.land(result(LATE, 'pass'));
    await w.land(result(EARLY, 'fail'));
    await w.land(run);
    expect((await w.table.getRun('S', run.id))!.value.hiddenTestResult).toMatchObject({ status: 'pass', ranAt: LATE });
  });

  it('on an archived attempt, also replace its result only when they ran later', async () => {
    const w = world();
    await w.land(run);
    await w.land(result(LATE, 'pass'));
    await w.land(
      runDelivery(
        { finishedAt: '2026-11-22T00:00:00Z' },
        { patch: 'diff --git a/r b/r\n--- a/r\n+++ b/r\n@@ -1 +1 @@\n-old\n+r\n' },
      ),
    );
    await w.land(result(EARLY, 'fail'));
    expect((await w.table.listAttempts('S', run.id))[0]!.hiddenTestResult).toMatchObject({ status: 'pass' });
  });
});

describe('issue records', () => {
  const sent = (at: string, mergeSha: string) => issueDelivery({ mergeSha }, 'mac-studio-1', at);

  it('replace the stored record only when sent later: a replayed old delivery never moves mergeSha back', async () => {
    const w = world();
    expect(await w.land(sent(EARLY, 'b'.repeat(40)))).toBe('issue');
    expect(await w.land(sent(LATE, 'c'.repeat(40)))).toBe('issue');
    const latest = await w.table.getIssue('S', 'acme__widgets-42');
    expect(await w.land(sent(EARLY, 'b'.repeat(40)))).toBe('issue-older');
    expect(await w.land(sent(LATE, 'd'.repeat(40)))).toBe('issue-older');
    expect(await w.table.getIssue('S', 'acme__widgets-42')).toEqual(latest);
    expect(latest).toMatchObject({ mergeSha: 'c'.repeat(40), sentAt: LATE, host: 'mac-studio-1' });
  });
});

describe('two patches for one (run, finishedAt)', () => {
  const a = runDelivery({}, { patch: 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+a\n' });
  const b = runDelivery({}, { patch: 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+b\n' });
  const acceptedA = '2026-11-29T11:00:00.000Z';
  const acceptedB = '2026-11-29T11:00:01.000Z';

  it('keep the one accepted first current, even when the other lands first; the other is an unjudged conflict', async () => {
    const w = world();
    expect(await w.land(b, acceptedB)).toBe('new');
    expect(await w.land(a, acceptedA)).toBe('displaces');
    expect(await w.land(b, acceptedB)).toBe('conflict');
    const row = (await w.table.getRun('S', a.id))!.value;
    expect((await readRunTexts(w.objects, row)).patch).toContain('+a');
    expect(row).toMatchObject({ attemptCount: 1, conflictCount: 1, acceptedAt: acceptedA, judgeState: 'pending' });
    const [conflict] = await w.table.listAttempts('S', a.id);
    expect(conflict).toMatchObject({ conflict: true, patchSha256: expect.any(String) });
    expect((await readRunTexts(w.objects, conflict!)).patch).toContain('+b');
    // Judged: the first landing of B and the landing of A; the conflict's replay queues nothing.
    expect(w.judgeQueue.sent).toHaveLength(2);
  });

  it('change nothing current when the later one lands after it, but its count', async () => {
    const w = world();
    await w.land(a, acceptedA);
    const before = (await w.table.getRun('S', a.id))!.value;
    expect(await w.land(b, acceptedB)).toBe('conflict');
    const after = (await w.table.getRun('S', a.id))!.value;
    expect({ ...after, updatedAt: before.updatedAt, conflictCount: 0 }).toEqual(before);
    expect(after.conflictCount).toBe(1);
    expect(w.judgeQueue.sent).toHaveLength(1);
  });

  it('count a late patch for an archived finishedAt that already has another as a conflict', async () => {
    const w = world();
    await w.land(a, acceptedA);
    await w.land(
      runDelivery(
        { finishedAt: '2026-11-22T00:00:00Z' },
        { patch: 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+c\n' },
      ),
    );
    expect(await w.land(b, acceptedB)).toBe('conflict');
    expect((await w.table.getRun('S', a.id))!.value).toMatchObject({ attemptCount: 2, conflictCount: 1 });
  });
});

describe('verdicts', () => {
  const config = parseConfig({ defaultJudgeModel: 'judge-a', spaces: { S: { senders: ['mac-studio-1'] } } });
  const patchA =
    'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-old\n+a\n';
  const patchB =
    'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-old\n+b\n';
  const attempt = (finishedAt: string, patch: string) => runDelivery({ finishedAt }, { patch });

  function judging(w: ReturnType<typeof world>, judgeConfig = config) {
    const model = new ScriptedJudgeModel((request) =>
      goodAnswer({ verdict: request.prompt.includes('+a') ? 'resolved' : 'wrong' }),
    );
    const deps: JudgeDeps = {
      config: judgeConfig,
      runs: w.table,
      attempts: w.table,
      issues: w.table,
      budget: w.table,
      judging: w.table,
      batches: w.table,
      objects: w.objects,
      model: async () => model,
      reference: async () =>
        new InMemoryReferenceSource()
          .setIssue('acme/widgets', 42, 'Widgets crash.')
          .setDiff('acme/widgets', 'a'.repeat(40), 'b'.repeat(40), patchA),
      clock: w.clock,
      maxDiffChars: 100_000,
    };
    /** Judges whatever landing queued since the last call. */
    const judgeQueued = async () => {
      for (const message of w.judgeQueue.sent.splice(0)) await judgeRun(deps, message);
    };
    return { model, judgeQueued, deps };
  }

  it('of a patch already judged for the run are reused by a later attempt with that patch, with no model call', async () => {
    const w = world();
    const j = judging(w);
    await w.land(issueDelivery());
    await w.land(attempt('2026-11-20T10:00:00Z', patchA));
    await j.judgeQueued();
    await w.land(attempt('2026-11-21T10:00:00Z', patchB));
    await j.judgeQueued();
    await w.land(attempt('2026-11-22T10:00:00Z', patchA));
    await j.judgeQueued();
    await w.land(attempt('2026-11-23T10:00:00Z', patchB));
    await j.judgeQueued();
    expect(j.model.requests).toHaveLength(2);
    const [first] = await w.table.listAttempts('S', runDelivery().id);
    const row = (await w.table.getRun('S', runDelivery().id))!.value;
    expect(row).toMatchObject({ judgeVerdict: 'wrong', judgeState: 'judged', judgeAttempts: 0, judgeCostUsd: 0 });
    expect(first).toMatchObject({ judgeVerdict: 'resolved', judgeModel: 'judge-a' });
  });

  it('of another judge model are not reused: the verdict belongs to (run, patch, judge model)', async () => {
    const w = world();
    await w.land(issueDelivery());
    await w.land(attempt('2026-11-20T10:00:00Z', patchA));
    await judging(w).judgeQueued();
    await w.land(attempt('2026-11-21T10:00:00Z', patchA));
    const other = judging(
      w,
      parseConfig({ defaultJudgeModel: 'judge-b', spaces: { S: { senders: ['mac-studio-1'] } } }),
    );
    await other.judgeQueued();
    expect(other.model.requests).toHaveLength(1);
    expect((await w.table.getRun('S', runDelivery().id))!.value.judgeModel).toBe('judge-b');
  });
});
