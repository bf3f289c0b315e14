// The judge's claim on a row that another writer changes first: the row's decide step runs again, and
// nothing the judge does besides writing the row (the space's judging status, the lookups, the model
// call) happens twice. Each test has a world of its own, in memory.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { judgeRun, type JudgeDeps } from '#core/judge/judge-run.ts';
import type { JudgingStatus, RunStore } from '#core/ports.ts';
import { parseConfig } from '#schema/config.ts';
import type { RunRow } from '#schema/run.ts';
import { inMemoryJudgeWorld, judgeWorldWithFix } from '../../../helpers/in-memory-judge.ts';

const config = parseConfig({
  defaultJudgeModel: 'claude-test-judge',
  spaces: { S: { senders: ['mac-studio-1'], repos: ['acme/widgets'] } },
  cockpits: { Board: { space: 'S' } },
});

/** Wraps `target` so every call of its methods is counted by name. */
function counted<T extends object>(target: T, calls: Map<string, number>, prefix: string): T {
  return new Proxy(target, {
    get(t, name, receiver) {
      const value = Reflect.get(t, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(`${prefix}.${String(name)}`, (calls.get(`${prefix}.${String(name)}`) ?? 0) + 1);
        return value.apply(t, args);
      };
    },
  });
}

let w: ReturnType<typeof inMemoryJudgeWorld>;
let row: RunRow;
let calls: Map<string, number>;

beforeEach(async () => {
  w = judgeWorldWithFix(config);
  await w.putIssue('S', 't-1');
  row = await w.putRun({ space: 'S', taskId: 't-1' });
  calls = new Map();
});

/** The judge's ports, counted; another writer updates the row just before the judge's first write of it. */
function racedDeps(overrides: Partial<JudgeDeps> = {}): JudgeDeps {
  let raced = false;
  const runs: RunStore = new Proxy(w.table, {
    get(t, name) {
      if (name !== 'putRun') return Reflect.get(t, name).bind(t);
      return async (next: RunRow, rev: number | null) => {
        calls.set('runs.putRun', (calls.get('runs.putRun') ?? 0) + 1);
        if (!raced) {
          raced = true;
          const latest = (await t.getRun(next.space, next.id))!;
          await t.putRun({ ...latest.value, updatedAt: '2026-11-29T08:10:30.000Z' }, latest.rev);
        }
        return t.putRun(next, rev);
      };
    },
  });
  const providers = { model: overrides.model ?? w.deps.model, reference: w.deps.reference };
  return {
    ...w.deps,
    runs,
    issues: counted(w.table, calls, 'issues'),
    judging: counted(w.table, calls, 'judging'),
    model: () => (calls.set('model', (calls.get('model') ?? 0) + 1), providers.model()),
    reference: () => (calls.set('reference', (calls.get('reference') ?? 0) + 1), providers.reference()),
  };
}

const judgeWith = (deps: JudgeDeps) => judgeRun(deps, { space: row.space, id: row.id, finishedAt: row.finishedAt });

const status = (state: JudgingStatus['state'], probeRunId: string | null = null): JudgingStatus => ({
  space: 'S',
  state,
  since: '2026-11-29T08:00:00.000Z',
  reason: state === 'judging' ? null : { code: 'bad-credentials', message: 'The provider refused the key.' },
  probeRunId,
});

describe('a judge claim that loses a race to another writer of the row', () => {
  it('decides again and claims the newest row, with one lookup of each kind and one model call', async () => {
    expect(await judgeWith(racedDeps())).toMatchObject({ result: 'judged', modelCall: 'answered' });
    expect(calls.get('runs.putRun')).toBe(3); // the lost claim, the claim, the verdict
    expect(calls.get('model')).toBe(1);
    expect(calls.get('reference')).toBe(1);
    expect(calls.get('issues.getIssue')).toBe(1);
    expect(calls.get('judging.getJudgingStatus')).toBe(1);
    expect(calls.get('judging.putJudgingStatus') ?? 0).toBe(0);
    expect(w.model.requests).toHaveLength(1);
    expect((await w.current(row)).judgeState).toBe('judged');
  });

  it('spends the probe of a paused space once: the call is made and the space resumes', async () => {
    await w.table.putJudgingStatus(status('paused', row.id), null);
    expect(await judgeWith(racedDeps())).toMatchObject({ result: 'judged', judging: 'judging' });
    // The probe taken, then the space resumed: one write each.
    expect(calls.get('judging.putJudgingStatus')).toBe(2);
    expect(w.model.requests).toHaveLength(1);
    expect((await w.table.getJudgingStatus('S'))?.value).toMatchObject({ state: 'judging', probeRunId: null });
  });

  it('resumes a space that waited for credentials once, and says it did', async () => {
    await w.table.putJudgingStatus(status('waiting-credentials'), null);
    expect(await judgeWith(racedDeps())).toMatchObject({ result: 'judged', judging: 'judging' });
    expect(calls.get('judging.putJudgingStatus')).toBe(1);
    expect((await w.table.getJudgingStatus('S'))?.value.state).toBe('judging');
  });

  it('holds a space without credentials once, and says it did', async () => {
    const deps = racedDeps({ model: async () => null });
    expect(await judgeWith(deps)).toEqual({ result: 'waiting-credentials', judging: 'waiting-credentials' });
    expect(calls.get('judging.getJudgingStatus')).toBe(1);
    expect(calls.get('judging.putJudgingStatus')).toBe(1);
    expect(calls.get('model')).toBe(1);
    expect((await w.current(row)).judgeState).toBe('waiting-credentials');
    expect(w.model.requests).toHaveLength(0);
  });
});
