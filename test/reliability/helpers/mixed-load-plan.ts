// The mixed load of mixed-load.test.ts, planned ahead from a fixed seed: which host sends what, in which chains
// and in which order, so a failing mix can be replayed.
import { randomUUID } from 'node:crypto';
import { sha256Hex } from '#shared/sha256.ts';
import { hiddenTestDelivery, issueDelivery, runDelivery } from '../../helpers/deliveries.ts';

export const TOTAL = 2000;
export const HOSTS = ['rack-a', 'rack-b', 'rack-c'];
/** Shares of the load; `sharedDeliveryIds` are deliveries that reuse another host's delivery's X-Replay-Delivery id. */
export const MIX = {
  exactReplays: 0.1,
  abAlternation: 0.05,
  hiddenTests: 0.15,
  issues: 0.1,
  forgeries: 0.05,
  sharedDeliveryIds: 0.1,
};
export const SEEDS = 20;
export const F = '2026-11-20T10:12:00.000Z';
export const BASE = 'a'.repeat(40);
export const OLD_MERGE = 'b'.repeat(40);
export const NEW_MERGE = 'c'.repeat(40);
export const FORGED_MERGE = 'f'.repeat(40);

export type Kind = 'run' | 'hidden-test' | 'issue';
export interface Planned {
  host: string;
  kind: Kind;
  body: Buffer;
  deliveryId: string;
  /** A host writing to another's run or task: must be refused with 403 not-owner. */
  forged: boolean;
  /** The run id or task id it writes to. */
  target: string;
  /** What it carries: the patch hash of a run, the ranAt of a hidden-test result, the sentAt of an issue. */
  value: string;
}

/** A well-formed one-hunk diff: the judge reads only the diff rebuilt from its hunks, so the mark must sit in one. */
export const patchOf = (mark: string) =>
  `diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-a\n+${mark}\n`;

function planned(host: string, delivery: Record<string, unknown>, forged = false): Planned {
  const kind = delivery.kind as Kind;
  const target = kind === 'issue' ? (delivery.issue as { taskId: string }).taskId : (delivery.id as string);
  const value =
    kind === 'run'
      ? sha256Hex(delivery.patch as string)
      : kind === 'issue'
        ? (delivery.sentAt as string)
        : (delivery.hiddenTestResult as { ranAt: string }).ranAt;
  return { host, kind, body: Buffer.from(JSON.stringify(delivery)), deliveryId: randomUUID(), forged, target, value };
}
const replayOf = (p: Planned): Planned => ({ ...p, deliveryId: randomUUID() });

/** A small deterministic generator, so a failing mix can be replayed. */
function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A run with a patch the judge sees (its mark names the run and the patch), or without one: `no_change`, no call. */
const run = (n: number, host: string, mark: string | null = `mark-${n}-A`) =>
  runDelivery({ host, taskId: `mixed-${n}` }, { patch: mark === null ? '' : patchOf(mark) });
const issue = (n: number, host: string, mergeSha: string, sentAt: string) =>
  issueDelivery({ taskId: `mixed-${n}`, baseSha: BASE, mergeSha }, host, sentAt);
const result = (id: string, host: string, status: 'pass' | 'fail', ranAt: string) => ({
  ...hiddenTestDelivery(id, F, status, host),
  hiddenTestResult: { status, ranAt, details: status },
});

/**
 * Seeds (sent and landed first: each host's own runs and tasks, targets of the forgeries), then chains: each chain
 * is sent in order by one sender, the chains in a shuffled order by sixteen. Only the seeds and the A/B runs have a
 * patch for the judge; every other run's is empty (no_change, no judge call).
 */
export function planLoad() {
  const random = prng(26);
  const count = (share: number) => Math.round(TOTAL * share);
  const ownerOf = (n: number) => HOSTS[n % HOSTS.length]!;
  const seeds = Array.from({ length: SEEDS }, (_, n) => [
    planned(ownerOf(n), issue(n, ownerOf(n), OLD_MERGE, '2026-11-19T00:00:00.000Z')),
    planned(ownerOf(n), run(n, ownerOf(n))),
  ]).flat();
  const chains: Planned[][] = [];
  let n = SEEDS;
  // A/B alternation: A, then B, then A, B, A again (byte-identical replays): four alternation deliveries per run.
  const abTasks: number[] = [];
  for (let i = 0; i < count(MIX.abAlternation) / 4; i++, n++) {
    const host = ownerOf(n);
    const [a, b] = [planned(host, run(n, host)), planned(host, run(n, host, `mark-${n}-B`))];
    chains.push([a, b, replayOf(a), replayOf(b), replayOf(a)]);
    abTasks.push(n);
  }
  // Hidden-test results out of order: the later one before its run lands, the earlier one after.
  const hiddenRuns = count(MIX.hiddenTests) / 2;
  const plain: Planned[] = [];
  for (let i = 0; i < hiddenRuns; i++, n++) {
    const host = ownerOf(n);
    const r = planned(host, run(n, host, null));
    const late = planned(host, result(r.target, host, 'pass', '2026-11-21T10:00:00.000Z'));
    const early = planned(host, result(r.target, host, 'fail', '2026-11-21T09:00:00.000Z'));
    chains.push([late, r, early]);
    plain.push(r, late, early);
  }
  // Issue records out of order: the one sent later first; for the A/B runs' tasks and for runs of their own. The
  // seeds and the A/B runs are judged.
  for (let i = 0; i < count(MIX.issues) / 2; i++) {
    const task = abTasks[i] ?? n++;
    const host = ownerOf(task);
    if (!abTasks.includes(task)) {
      const r = planned(host, run(task, host, null));
      chains.push([r]);
      plain.push(r);
    }
    const newer = planned(host, issue(task, host, NEW_MERGE, '2026-11-22T00:00:00.000Z'));
    const older = planned(host, issue(task, host, OLD_MERGE, '2026-11-21T00:00:00.000Z'));
    chains.push([newer, older]);
    plain.push(newer, older);
  }
  // Forgeries: another host's run, hidden-test result and issue record for a seeded run or task.
  for (let i = 0; i < count(MIX.forgeries); i++) {
    const seed = i % SEEDS;
    const forger = ownerOf(seed + 1 + (i % 2));
    const id = run(seed, ownerOf(seed)).id as string;
    const forgery = [
      run(seed, forger, `forged-${i}`),
      {
        ...result(id, forger, 'pass', '2026-12-01T00:00:00.000Z'),
        hiddenTestResult: { status: 'error', ranAt: '2026-12-01T00:00:00.000Z', details: 'forged' },
      },
      issue(seed, forger, FORGED_MERGE, '2026-12-01T00:00:00.000Z'),
    ][i % 3]!;
    chains.push([planned(forger, forgery, true)]);
  }
  const sent = () => seeds.length + chains.flat().length;
  const replays = count(MIX.exactReplays);
  while (sent() + replays < TOTAL) {
    const host = ownerOf(n);
    const r = planned(host, run(n++, host, null));
    chains.push([r]);
    plain.push(r);
  }
  for (let i = 0; i < replays; i++) chains.push([replayOf(plain[Math.floor(random() * plain.length)]!)]);
  // Pairs of deliveries of two hosts under one X-Replay-Delivery id: the inbox keys each by its host and body, so
  // neither replaces the other. Each delivery is in at most one pair.
  const unpaired = chains.flat().filter((p) => !p.forged);
  for (let pairs = 0; pairs < count(MIX.sharedDeliveryIds) / 2; pairs++) {
    const p = unpaired.splice(Math.floor(random() * unpaired.length), 1)[0]!;
    const others = unpaired.filter((q) => q.host !== p.host);
    const q = others[Math.floor(random() * others.length)]!;
    unpaired.splice(unpaired.indexOf(q), 1);
    q.deliveryId = p.deliveryId;
  }
  for (let i = chains.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [chains[i], chains[j]] = [chains[j]!, chains[i]!];
  }
  const judged = [...Array.from({ length: SEEDS }, (_, seed) => seed), ...abTasks];
  return { seeds, chains, judged: new Set(judged.map((t) => `mixed-${t}`)) };
}
