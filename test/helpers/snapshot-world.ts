// The runs snapshot's test world, over whichever stores a suite gives it (in memory, or the emulators): judged
// runs to seed, a cold read process that counts its whole-table reads, and the answers the tests read back.
import { gunzipSync } from 'node:zlib';
import { judged } from '../../bench/direct-load.ts';
import { columnsFromBytes } from '#analytics/columns.ts';
import type { StatsBody } from '#analytics/contract.ts';
import { answerRead } from '#core/read/read-api.ts';
import type { ReadDeps } from '#core/read/read-deps.ts';
import { columnsAnswer } from '#core/read/read-model.ts';
import { compactSpace, type ColumnPartLimits } from '#core/read/snapshot-store.ts';
import type { IssueStore, Page, RunStore } from '#core/ports.ts';
import type { ReplayConfig } from '#schema/config.ts';
import type { RunRow } from '#schema/run.ts';
import { runRow } from './records.ts';

export interface SnapshotStores {
  store: ReadDeps['runs'] & ReadDeps['issues'] & ReadDeps['attempts'] & ReadDeps['hosts'] & ReadDeps['budget'];
  data: ReadDeps['objects'];
}

/** `stores()` is read at each call, so a suite may give each test stores of its own. */
export function snapshotWorld(config: ReplayConfig, stores: () => SnapshotStores) {
  let serial = 0;
  function run(space: string, taskId: string, verdict: 'resolved' | 'wrong', at: string, model = 'qwen3:8b'): RunRow {
    const row = runRow(
      { model, taskId, harnessVersion: 'h1', startedAt: at, finishedAt: at, promptTokens: 1000 + serial++ },
      { space, updatedAt: at },
    );
    return judged(
      row,
      { verdict, rootCauseFound: true, sameFilesAsReference: true, testAdded: false, wouldCompile: true, reason: 'r' },
      'judge',
      at,
    );
  }

  /** The table as one cold read process sees it: a fresh store object (no cached runs), counting whole-table reads. */
  function coldProcess() {
    const { store, data } = stores();
    let wholeReads = 0;
    const runs: RunStore = {
      getRun: (s, id) => store.getRun(s, id),
      putRun: (r, rev) => store.putRun(r, rev),
      listDueRuns: (s, d, l) => store.listDueRuns(s, d, l),
      countRunsByHost: (s, h) => store.countRunsByHost(s, h),
      listRuns: (s, q): Promise<Page<RunRow>> => {
        if (!q.since) wholeReads++;
        return store.listRuns(s, q);
      },
    };
    let wholeIssueReads = 0;
    const issues: IssueStore = {
      putIssue: (issue) => store.putIssue(issue),
      getIssue: (s, taskId) => store.getIssue(s, taskId),
      putPendingHiddenTest: (pending) => store.putPendingHiddenTest(pending),
      getPendingHiddenTests: (s, id) => store.getPendingHiddenTests(s, id),
      putIssueWaiter: (waiter, now) => store.putIssueWaiter(waiter, now),
      getIssueWaiters: (s, taskId) => store.getIssueWaiters(s, taskId),
      listIssues: (s, since) => {
        if (since === undefined) wholeIssueReads++;
        return store.listIssues(s, since);
      },
    };
    const deps: ReadDeps = {
      config,
      runs,
      attempts: store,
      issues,
      hosts: store,
      budget: store,
      objects: data,
      pairing: { isPaired: async () => false },
      clock: { now: () => new Date() },
    };
    return { deps, wholeReads: () => wholeReads, wholeIssueReads: () => wholeIssueReads };
  }

  const stats = async (deps: ReadDeps, space: string) =>
    (await answerRead(deps, 'GET', `/api/spaces/${space}/stats`, '')).body as StatsBody;
  const columnsOf = async (deps: ReadDeps, space: string) =>
    columnsFromBytes(gunzipSync((await columnsAnswer(deps, space, 'gzip')).body as Buffer));

  /** `count` judged runs (the first ten resolved), compacted into a snapshot. */
  async function seededSpace(space: string, count: number, limits?: ColumnPartLimits) {
    await Promise.all(
      Array.from({ length: count }, (_, k) =>
        stores().store.putRun(run(space, `t${k}`, k < 10 ? 'resolved' : 'wrong', '2026-01-01T00:00:00.000Z'), null),
      ),
    );
    return compactSpace(coldProcess().deps, space, limits);
  }

  return { run, coldProcess, stats, columnsOf, seededSpace };
}
