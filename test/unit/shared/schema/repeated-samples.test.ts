// Repeated samples of one (model, task, harness) (docs/contract.md §2): sample 1 keeps the id runs had before,
// sample k > 1 ends in `__s{k}`; each sample is a row of its own at ingest, at landing and in the cockpit's
// table, and replay-push and the Inspect importer carry the number from their source.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { RunTable } from '#analytics/run-table.ts';
import { columnsFromBytes, columnsToBytes, encodeColumns } from '#analytics/columns.ts';
import { prepareRun, readRunFolder } from '#runner/run-folder.ts';
import { toRunFolder, type ImportedRun } from '#runner/import/imported-run.ts';
import { runId } from '#schema/run-id.ts';
import { runnerRowSchema } from '#schema/run.ts';
import { compactRunOf } from '../../../helpers/compact-runs.ts';
import { runDelivery, runnerRow } from '../../../helpers/deliveries.ts';
import { ingestLandingWorld as world } from '../../../helpers/ingest-landing-world.ts';

const base = { model: 'qwen3:8b', taskId: 'acme__widgets-42', harnessVersion: 'h2' };

describe('the run id of a sample', () => {
  it('is unchanged for sample 1 and ends in __s{k} past it', () => {
    expect(runId(base)).toBe('qwen3_8b__acme__widgets-42__h2');
    expect(runId({ ...base, sample: 1 })).toBe('qwen3_8b__acme__widgets-42__h2');
    expect(runId({ ...base, sample: 3 })).toBe('qwen3_8b__acme__widgets-42__h2__s3');
  });

  it('is sample 1 when a row gives none, and refuses a sample below 1 or not whole', () => {
    const row = runnerRow();
    expect(row.sample).toBeUndefined();
    expect(runnerRowSchema.parse(row).sample).toBe(1);
    expect(runnerRowSchema.safeParse({ ...row, sample: 0 }).success).toBe(false);
    expect(runnerRowSchema.safeParse({ ...row, sample: 1.5 }).success).toBe(false);
  });
});

describe('at ingest and landing', () => {
  it('lands each sample as its own row, and a second delivery of a sample as its re-run', async () => {
    const w = world();
    const [one, two] = [runDelivery({ sample: 1 }), runDelivery({ sample: 2 })];
    expect(two.id).toBe(`${one.id}__s2`);
    await w.land(one);
    expect((await w.send(two)).status).toBe(202);
    await w.land(two);
    expect((await w.table.getRun('S', one.id))?.value).toMatchObject({ sample: 1, attemptCount: 1 });
    expect((await w.table.getRun('S', two.id))?.value).toMatchObject({ sample: 2, attemptCount: 1 });
    await w.land(runDelivery({ sample: 2, finishedAt: '2026-11-21T00:00:00Z' }), 'd-again');
    expect((await w.table.getRun('S', two.id))?.value).toMatchObject({ sample: 2, attemptCount: 2 });
    expect((await w.table.getRun('S', one.id))?.value).toMatchObject({ attemptCount: 1 });
  });

  it('refuses at ingest a run whose harness is named like a sample’s ending, so no other run spells a sample’s id', async () => {
    const w = world();
    // Task "acme__widgets-42__h2" under harness "s2" would spell sample 2's id of task "acme__widgets-42" under "h2".
    const sampleTwo = runDelivery({ sample: 2 });
    await w.land(sampleTwo);
    const other = runDelivery({ taskId: 'acme__widgets-42__h2', harnessVersion: 's2' });
    expect(other.id).toBe(sampleTwo.id);
    expect(await w.send(other)).toMatchObject({
      status: 400,
      body: { error: 'invalid-delivery', details: [expect.stringMatching(/^row\.harnessVersion: .*sample/)] },
    });
  });
});

describe("the cockpit's table", () => {
  it('keeps samples apart, finds each by id, and replaces a sample by its repeat', () => {
    const [one, two, three] = [1, 2, 3].map((sample) =>
      compactRunOf({ ...base, sample, verdict: sample === 2 ? 'wrong' : 'resolved' }),
    );
    const table = RunTable.fromRuns([one!, two!, three!]);
    expect(table.size).toBe(3);
    expect([0, 1, 2].map((i) => table.id(i))).toEqual([
      'qwen3_8b__acme__widgets-42__h2',
      'qwen3_8b__acme__widgets-42__h2__s2',
      'qwen3_8b__acme__widgets-42__h2__s3',
    ]);
    expect(table.indexOfId('qwen3_8b__acme__widgets-42__h2__s3')).toBe(2);
    expect(table.upsert({ ...two!, verdict: 'resolved' })).toEqual({ index: 1, changed: true });
    expect(table.size).toBe(3);
    expect(table.codes.verdict[1]).toBe(table.codes.verdict[0]);
  });

  it('finds sample 1 of a harness named like a sample suffix', () => {
    const table = RunTable.fromRuns([compactRunOf({ ...base, taskId: 'acme__widgets-42__h2', harnessVersion: 's2' })]);
    expect(table.indexOfId('qwen3_8b__acme__widgets-42__h2__s2')).toBe(0);
  });

  it('carries the sample through the columns body, and reads a row without one as sample 1', () => {
    const runs = [compactRunOf({ ...base, sample: 4 }), compactRunOf({ ...base, sample: null })];
    const table = RunTable.fromColumns([columnsFromBytes(columnsToBytes(encodeColumns(runs, 'now')))]);
    expect([table.sampleAt(0), table.sampleAt(1)]).toEqual([4, 1]);
    expect(table.id(0)).toBe('qwen3_8b__acme__widgets-42__h2__s4');
  });
});

describe('senders', () => {
  it('replay-push takes the sample from result.json into the row and the id', async () => {
    const example = join(import.meta.dirname, '../../../fixtures/runs/qwen3-8b__acme__widgets-42__h2');
    const dir = join(mkdtempSync(join(tmpdir(), 'replay-sample-')), 'run');
    cpSync(example, dir, { recursive: true });
    const result = JSON.parse(readFileSync(join(example, 'result.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'result.json'), JSON.stringify({ ...result, sample: 3 }));
    const prepared = prepareRun(await readRunFolder(dir), { runsRoot: dirname(dir) });
    expect(prepared.row.sample).toBe(3);
    expect(prepared.id).toMatch(/__s3$/);
  });

  it("an importer's epoch becomes the run folder's sample and its id", () => {
    const imported: ImportedRun = {
      source: 'log.eval#7/2',
      metricsSource: 'inspect/2',
      taskId: 'task-7',
      model: 'openai/gpt-5',
      harnessVersion: 'inspect@0.3.1',
      sample: 2,
      startedAt: null,
      finishedAt: '2026-11-20T10:00:00.000Z',
      outcome: 'finished',
      figures: {},
      patch: '',
      summary: '',
      hiddenTest: null,
      task: null,
    };
    const folder = toRunFolder(imported, {});
    expect(folder).toMatchObject({ id: 'openai_gpt-5__task-7__inspect@0.3.1__s2' });
    expect(JSON.parse((folder as { files: Record<string, string> }).files['result.json']!)).toMatchObject({
      sample: 2,
    });
  });
});
