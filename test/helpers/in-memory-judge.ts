// The judge's world in memory, fresh per test: the table, the data bucket (in-memory-ports.ts), a scripted model
// and a code host (in-memory-judge-ports.ts), a clock that stands still, and the read API over the same stores.
// Runs are put as landing leaves them (patch and summary stored, row due), so the judge's own rules decide the rest.
import { judgeRun, DEFAULT_MAX_DIFF_CHARS, type JudgeDeps, type JudgeOutcome } from '#core/judge/judge-run.ts';
import { landEntry } from '#core/landing/land.ts';
import { answerRead } from '#core/read/read-api.ts';
import type { SweepDeps } from '#core/judge/sweep.ts';
import type { JudgeMessage } from '#core/ports.ts';
import { runTextsObject } from '#core/run-texts.ts';
import { patchKey, summaryKey } from '#core/storage-layout.ts';
import type { ReplayConfig } from '#schema/config.ts';
import type { RunRow } from '#schema/run.ts';
import { sha256Hex } from '#shared/sha256.ts';
import {
  InMemoryKeySource,
  InMemoryObjectStore,
  InMemoryTable,
  RecordingQueue,
  SettableClock,
} from './in-memory-ports.ts';
import { InMemoryReferenceSource, ScriptedJudgeModel } from './in-memory-judge-ports.ts';
import { inboxEntry, issueDelivery, runDelivery, type DeliveryInput } from './deliveries.ts';
import { goodAnswer } from './judge.ts';
import { LANDED_AT, runRow, storedIssue } from './records.ts';

export const BASE = 'a'.repeat(40);
export const MERGE = 'b'.repeat(40);
export const REFERENCE_FIX = [
  'diff --git a/src/widget.ts b/src/widget.ts',
  '--- a/src/widget.ts',
  '+++ b/src/widget.ts',
  '@@ -1 +1 @@',
  '-return input.length;',
  '+return input?.length ?? 0;',
  '',
].join('\n');

export interface StoredRun {
  space?: string;
  taskId?: string;
  patch?: string;
  summary?: string;
  /** Stored as a run landed before patch and summary were one object. */
  twoObjects?: boolean;
}

export function inMemoryJudgeWorld(config: ReplayConfig) {
  const table = new InMemoryTable();
  const objects = new InMemoryObjectStore();
  const inbox = new InMemoryObjectStore();
  const model = new ScriptedJudgeModel(() => goodAnswer());
  const code = new InMemoryReferenceSource();
  const clock = new SettableClock(new Date(Date.parse(LANDED_AT) + 60_000));
  const deps: JudgeDeps = {
    config,
    runs: table,
    attempts: table,
    issues: table,
    budget: table,
    judging: table,
    batches: table,
    objects,
    model: async () => model,
    reference: async () => code,
    clock,
    maxDiffChars: DEFAULT_MAX_DIFF_CHARS,
  };

  /**
   * A landed run, due now, with its patch and summary stored where landing puts them: one object, or
   * (`twoObjects`) the two a run landed before then keeps.
   */
  async function putRun({
    space = 'S',
    taskId = 't-1',
    patch = REFERENCE_FIX,
    summary = 'Guarded the length.',
    twoObjects = false,
  }: StoredRun = {}): Promise<RunRow> {
    const draft = runRow({ taskId }, { space });
    const patchSha256 = sha256Hex(patch);
    let row: RunRow;
    if (twoObjects) {
      row = {
        ...draft,
        patchSha256,
        patchKey: patchKey(space, draft.id, draft.finishedAt, patchSha256),
        summaryKey: summaryKey(space, draft.id, draft.finishedAt, sha256Hex(summary)),
      };
      await objects.put(row.patchKey!, patch);
      await objects.put(row.summaryKey!, summary);
    } else {
      const texts = runTextsObject(space, draft.id, draft.finishedAt, { patch, summary });
      row = { ...draft, patchSha256, textsKey: texts.key, patchKey: null, summaryKey: null };
      await objects.put(texts.key, texts.body);
    }
    await table.putRun(row, null);
    return row;
  }

  /** The task's issue record in `space`, naming `repo` at the default SHAs. */
  const putIssue = (space: string, taskId: string, repo = 'acme/widgets', issueNumber = 42) =>
    table.putIssue(storedIssue({ taskId, repo, issueNumber, baseSha: BASE, mergeSha: MERGE }, { space }));

  const judge = (row: RunRow): Promise<JudgeOutcome> =>
    judgeRun(deps, { space: row.space, id: row.id, finishedAt: row.finishedAt });

  let landings = 0;
  /** Lands a delivery through the real landing code, now; the judge messages landing sent. */
  async function landDelivery(
    space: string,
    delivery: DeliveryInput,
    queue = new RecordingQueue<JudgeMessage>(),
  ): Promise<JudgeMessage[]> {
    const entry = inboxEntry(space, delivery, { deliveryId: `d-${++landings}`, receivedAt: clock.now().toISOString() });
    await landEntry(
      { runs: table, attempts: table, issues: table, hosts: table, objects, inbox, judgeQueue: queue, clock },
      entry,
    );
    return queue.sent;
  }

  /** Lands a run through the real landing code, now, and returns the judge message landing sent. */
  async function land(
    space: string,
    rowOverrides: Record<string, unknown> = {},
    extra: Record<string, unknown> = {},
  ): Promise<JudgeMessage> {
    const delivery = runDelivery(rowOverrides, extra);
    const [sent] = await landDelivery(space, delivery);
    return sent ?? { space, id: delivery.id, finishedAt: delivery.row.finishedAt };
  }

  /** Lands the task's issue record (at the default SHAs) through the real landing code; the judge messages it sent. */
  const landIssue = (space: string, taskId: string, sentAt?: string, queue?: RecordingQueue<JudgeMessage>) =>
    landDelivery(space, issueDelivery({ taskId, baseSha: BASE, mergeSha: MERGE }, undefined, sentAt), queue);

  const sweepDeps = (judgeQueue: RecordingQueue<JudgeMessage>): SweepDeps => ({
    config,
    runs: table,
    judging: table,
    batches: table,
    judgeQueue,
    clock,
  });

  const current = async (row: RunRow): Promise<RunRow> => (await table.getRun(row.space, row.id))!.value;

  /** The read API as a read function configured with `readConfig` (one cockpit's, when deployed) answers. */
  async function read(readConfig: ReplayConfig, target: string) {
    const [path, query = ''] = target.split('?') as [string, string?];
    const answer = await answerRead(
      {
        config: readConfig,
        runs: table,
        attempts: table,
        issues: table,
        hosts: table,
        objects,
        pairing: new InMemoryKeySource({}),
        budget: table,
        clock,
      },
      'GET',
      path,
      query,
    );
    return { status: answer.status, body: answer.body as Record<string, unknown> };
  }

  return {
    table,
    objects,
    model,
    code,
    clock,
    deps,
    putRun,
    putIssue,
    land,
    landIssue,
    sweepDeps,
    judge,
    current,
    read,
  };
}

/** A world whose code host has acme/widgets#42 and its merged fix (BASE..MERGE, REFERENCE_FIX). */
export function judgeWorldWithFix(config: ReplayConfig) {
  const w = inMemoryJudgeWorld(config);
  w.code
    .setIssue('acme/widgets', 42, 'Widgets crash on empty input.')
    .setDiff('acme/widgets', BASE, MERGE, REFERENCE_FIX);
  return w;
}
