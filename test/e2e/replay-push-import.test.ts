// `replay-push import` into local mode (docs/runner.md, "Importing a harness's outputs"): the real public files of
// each format (test/fixtures/import/) go through the outbox, signing and the ledger as `sync` sends them, land as
// rows with the fields their sources have (per-test names from SWE-bench's reports), and a second import of the
// same files sends nothing and changes no row.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import { filesUnder, replayPush, tempDir, writeKeyFile } from '../helpers/run-folders.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/import');
const KEY = 'import-key';
const HOST = 'importer-1';
let local: TestLocalMode | null = null;
afterAll(() => local?.stop());

type Row = {
  id: string;
  taskId: string;
  metricsSource: string;
  costUsd: number | null;
  deliveryCount: number;
  attemptCount: number;
  hiddenTestResult: { status: string; passedTests?: string[]; failedTests?: string[] } | null;
};

describe('replay-push import into local mode', () => {
  it('delivers every format’s real runs once, with their hidden tests and issues; a second import sends nothing', async () => {
    local = await startTestLocalMode({ spaces: { S: { senders: [HOST] } } }, { [HOST]: KEY });
    const dir = tempDir('replay-import-e2e-');
    const keyFile = writeKeyFile(dir, KEY);
    const into = join(dir, 'imported');
    const args = [
      'import',
      'auto',
      join(FIXTURES, 'swe-bench/preds.json'),
      join(FIXTURES, 'swe-bench/logs'),
      join(FIXTURES, 'openhands'),
      join(FIXTURES, 'swe-agent'),
      join(FIXTURES, 'mini-swe-agent'),
      join(FIXTURES, 'inspect'),
      '--harness-version',
      'imported-1',
      '--into',
      into,
      '--endpoint',
      `${local.url}/hooks/S/ingest`,
      '--key-file',
      keyFile,
      '--host',
      HOST,
    ];
    const first = await replayPush(args);
    expect(first.err.filter((l) => !l.startsWith('delivered '))).toEqual([]);
    // 3 predictions, 2 OpenHands runs, 1 SWE-agent and 1 mini-swe-agent trajectory, 11 Inspect samples.
    expect(first.out).toEqual(['delivered 18, already accepted 0, queued 0, rejected 0']);
    expect(first.code).toBe(0);

    const rowsOf = async () =>
      ((await (await fetch(`${local!.url}/api/spaces/S/runs?limit=100`)).json()) as { runs: Row[] }).runs;
    const rows = await eventually(async () => {
      const landed = await rowsOf();
      return landed.length === 18 && landed.filter((r) => r.hiddenTestResult).length === 4 && landed;
    }, 20_000);
    const bySource = (source: string) =>
      rows
        .filter((r) => r.metricsSource === source)
        .map((r) => r.taskId)
        .sort();
    expect(bySource('swe-bench/1')).toEqual([
      'astropy__astropy-12907',
      'astropy__astropy-13033',
      'django__django-16255',
    ]);
    expect(bySource('openhands/1')).toEqual(['ponylang__ponyc-4588', 'ponylang__ponyc-4595']);
    expect(bySource('swe-agent/1')).toEqual(['6e44b9__sweagenttestrepo-1c2844']);
    expect(bySource('mini-swe-agent/1')).toEqual(['django__django-16255']);
    expect(bySource('inspect/2')).toHaveLength(11);
    const failed = rows.find((r) => r.taskId === 'astropy__astropy-13033')!.hiddenTestResult!;
    expect(failed.status).toBe('fail');
    expect(failed.failedTests).toContain('astropy/timeseries/tests/test_sampled.py::test_required_columns');
    const { issues } = (await (await fetch(`${local.url}/api/spaces/S/issues`)).json()) as {
      issues: { taskId: string; repo: string }[];
    };
    expect(issues.map((i) => i.taskId).sort()).toEqual([
      'astropy__astropy-12907',
      'astropy__astropy-13033',
      'django__django-16255',
      'ponylang__ponyc-4588',
      'ponylang__ponyc-4595',
    ]);

    const folders = filesUnder(into).filter((f) => !f.path.includes('.replay-outbox'));
    const second = await replayPush(args);
    expect(second.out).toEqual(['delivered 0, already accepted 18, queued 0, rejected 0']);
    expect(second.code).toBe(0);
    expect(filesUnder(into).filter((f) => !f.path.includes('.replay-outbox'))).toEqual(folders);
    const again = await rowsOf();
    // No delivery landed again: each row still has its first one (run, then hidden tests) and one attempt.
    const landing = (list: Row[]) => list.map((r) => [r.id, r.deliveryCount, r.attemptCount]).sort();
    expect(landing(again)).toEqual(landing(rows));
    expect(again.every((r) => r.attemptCount === 1)).toBe(true);
  }, 60_000);
});
