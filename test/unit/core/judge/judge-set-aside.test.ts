// A verdict belongs to (run, patch, judge model) (docs/contract.md §4, §5): whatever a host sends around it (a
// contaminated retry, then a clean one) and whatever an operator does (a reassign there and back), one patch costs
// one model call, in Message Batch mode too, and an answer under way lands where its attempt is. Each test runs the
// real landing, judge and batch rules against in-memory ports, in a world of its own.
import { describe, expect, it } from '@jest/globals';
import { collectBatch, submitBatch } from '#core/judge/batch.ts';
import { reassignRun } from '#core/landing/reassign.ts';
import { parseConfig } from '#schema/config.ts';
import type { RunRow } from '#schema/run.ts';
import { JudgeModelError } from '#core/ports.ts';
import { goodAnswer } from '../../../helpers/judge.ts';
import { REFERENCE_FIX, judgeWorldWithFix } from '../../../helpers/in-memory-judge.ts';

const F = '2026-11-20T10:12:00.000Z';
const contaminated = { contamination: [{ step: 1, path: '/etc/hosts' }] };
const wrong = () => goodAnswer({ verdict: 'wrong', reason: 'Misses the case.' });

/** A world with task t-1's record and one landed run of it, its patch the reference fix. */
async function worldWithRun(space: Record<string, unknown> = {}) {
  const config = parseConfig({
    defaultJudgeModel: 'claude-test-judge',
    spaces: { S: { senders: ['mac-studio-1', 'mac-mini-2'], repos: ['acme/widgets'], ...space } },
    prices: { 'claude-test-judge': { inputPerMTok: 3, outputPerMTok: 15 } },
  });
  const w = judgeWorldWithFix(config);
  await w.putIssue('S', 't-1');
  const message = await w.land('S', { taskId: 't-1', finishedAt: F }, { patch: REFERENCE_FIX });
  const row = (await w.table.getRun('S', message.id))!.value;
  const send = (overrides: Record<string, unknown> = {}) =>
    w.land('S', { taskId: 't-1', finishedAt: F, ...overrides }, { patch: REFERENCE_FIX });
  return { w, config, row, send };
}

const submit = (w: Awaited<ReturnType<typeof worldWithRun>>['w'], row: RunRow) =>
  submitBatch(w.deps, 'S', [{ id: row.id, finishedAt: row.finishedAt }]);

describe('in Message Batch mode', () => {
  it('collects an answer whose attempt a contaminated retry set aside, and the clean retry gives it back', async () => {
    const { w, row, send } = await worldWithRun({ judge: { mode: 'batch' } });
    await submit(w, row);
    await send(contaminated);
    w.model.answer = wrong;
    await collectBatch(w.deps, 'S', 'msgbatch_1');
    const excluded = await w.current(row);
    expect(excluded).toMatchObject({
      judgeVerdict: 'excluded',
      judgeSetAside: { judgeVerdict: 'wrong', judgeState: 'judged', judgeBatchId: null },
    });
    // The row's cost is the answer's, as the no-call verdict keeps it.
    expect(excluded.judgeCostUsd).toBe(excluded.judgeSetAside!.judgeCostUsd);
    expect(excluded.judgeCostUsd).toBeGreaterThan(0);
    await send();
    expect(await w.current(row)).toMatchObject({ judgeVerdict: 'wrong', judgeState: 'judged' });
    expect(w.model.requests).toHaveLength(1);
  });

  it('records the batch on the set-aside attempt when the retry lands while the request is prepared', async () => {
    const { w, row, send } = await worldWithRun({ judge: { mode: 'batch' } });
    const diff = w.code.diff.bind(w.code);
    let landed = false;
    w.code.diff = async (...args: Parameters<typeof diff>) => {
      if (!landed) [landed] = [true, await send(contaminated)];
      return diff(...args);
    };
    await submit(w, row);
    const aside = await w.current(row);
    expect(aside).toMatchObject({
      judgeState: 'not-needed',
      judgeSetAside: { judgeState: 'waiting-batch', judgeBatchId: 'msgbatch_1' },
    });
    expect(aside.judgeBatchId ?? null).toBeNull();
    w.model.answer = wrong;
    await collectBatch(w.deps, 'S', 'msgbatch_1');
    await send();
    expect(await w.current(row)).toMatchObject({ judgeVerdict: 'wrong', judgeState: 'judged', contamination: [] });
    expect(w.model.requests).toHaveLength(1);
  });
});

describe('a run waiting for its issue record', () => {
  it('is judged when a clean retry lands after the record landed while the run was set aside', async () => {
    const { w, row, send } = await worldWithRun();
    // One attempt the provider refused, then the record names a repository the space does not list: the run waits.
    w.model.answer = () => new JudgeModelError('provider-http-529', 'The provider answered HTTP 529.');
    await w.judge(row);
    w.clock.advance(3600);
    const issue = (await w.table.getIssue('S', 't-1'))!;
    await w.table.putIssue({ ...issue, repo: 'acme/elsewhere', sentAt: w.clock.now().toISOString() });
    await w.judge(row);
    expect(await w.current(row)).toMatchObject({ judgeState: 'waiting-issue', judgeAttempts: 1 });
    await send(contaminated);
    expect((await w.current(row)).judgeSetAside).toMatchObject({ judgeState: 'waiting-issue' });
    // The record lands while the run is set aside: the run has no next attempt, so nothing is woken.
    w.clock.advance(60);
    expect(await w.landIssue('S', 't-1', w.clock.now().toISOString())).toEqual([]);
    w.model.answer = () => goodAnswer();
    const message = await send();
    expect(await w.current(row)).toMatchObject({
      judgeState: 'waiting-issue',
      judgeNextAttemptAt: w.clock.now().toISOString(),
    });
    expect(message.deliveryId).toBeDefined();
    await w.judge(row);
    expect(await w.current(row)).toMatchObject({ judgeState: 'judged', judgeVerdict: 'resolved', judgeAttempts: 2 });
  });
});

describe('a reassign', () => {
  it('there and back keeps the verdict of the patch: no second call', async () => {
    const { w, config, row } = await worldWithRun();
    await w.land('S', { taskId: 't-1', finishedAt: F, host: 'mac-mini-2' }, { patch: `${REFERENCE_FIX}\n` });
    w.model.answer = wrong;
    await w.judge(row);
    const deps = { config, runs: w.table, attempts: w.table, objects: w.objects, clock: w.clock };
    await reassignRun(deps, 'S', row.id, 'mac-mini-2');
    await reassignRun(deps, 'S', row.id, 'mac-studio-1');
    w.model.answer = () => goodAnswer();
    await w.judge(await w.current(row));
    expect(w.model.requests).toHaveLength(1);
    expect(await w.current(row)).toMatchObject({ host: 'mac-studio-1', judgeVerdict: 'wrong', judgeState: 'judged' });
  });

  it("while the former owner's run is judged: that answer never lands on the new owner's row", async () => {
    const { w, config, row } = await worldWithRun();
    // The other host sent the same attempt, kept apart as foreign.
    await w.land('S', { taskId: 't-1', finishedAt: F, host: 'mac-mini-2' }, { patch: REFERENCE_FIX });
    const deps = { config, runs: w.table, attempts: w.table, objects: w.objects, clock: w.clock };
    w.model.answer = async () => {
      await reassignRun(deps, 'S', row.id, 'mac-mini-2');
      return goodAnswer();
    };
    expect(await w.judge(row)).toMatchObject({ result: 'stale' });
    expect(await w.current(row)).toMatchObject({ host: 'mac-mini-2', judgeVerdict: null, judgeState: 'pending' });
  });
});
