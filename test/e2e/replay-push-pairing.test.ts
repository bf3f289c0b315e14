// A runner host that is not paired yet keeps its runs and delivers them once its key appears; and the
// bundled replay-push.mjs does the same job with nothing but Node (docs/contract.md §7).
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { keyEnvName } from '#shared/key-names.ts';
import { buildClient } from '../../bin/build-client.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import {
  replayPush,
  resultJson,
  SMALL_PATCH,
  taskJson,
  tempDir,
  writeKeyFile,
  writeRunFolder,
} from '../helpers/run-folders.ts';

let local: TestLocalMode;

beforeAll(async () => {
  // No key given: local mode generates a development key for each sender, as `npm start` does.
  local = await startTestLocalMode({ spaces: { S: { senders: ['mac-new', 'mac-bundle'] } } }, {});
});
afterAll(async () => {
  await local.stop();
});

const serverKey = (host: string) =>
  readFileSync(join(local.keysDir, keyEnvName('Hosting:ModuleReportSecret', host)), 'utf8');
const landedIds = (host: string) =>
  fetch(`${local.url}/api/spaces/S/runs`)
    .then((r) => r.json() as Promise<{ runs: { id: string; host: string; hiddenTestResult: unknown }[] }>)
    .then(({ runs }) => runs.filter((r) => r.host === host));

describe('an unpaired runner host', () => {
  it('queues its runs, says so once, and delivers them after its key file appears', async () => {
    const root = tempDir('replay-unpaired-');
    for (const n of [1, 2, 3])
      writeRunFolder(root, {
        result: resultJson({ taskId: `pair-${n}`, host: 'mac-new' }),
        patch: SMALL_PATCH,
        hiddenTest: { status: 'pass', ranAt: '2026-11-20T11:00:00Z' },
      });
    const clientKeys = tempDir('replay-client-keys-');
    const env = { REPLAY_ENDPOINT: `${local.url}/hooks/S/ingest`, REPLAY_KEYS_DIR: clientKeys, REPLAY_HOST: 'mac-new' };

    const before = await replayPush(['sync', root], env);
    expect(before.code).toBe(1);
    expect(before.out).toEqual(['delivered 0, already accepted 0, queued 3, rejected 0']);
    const keyPath = join(clientKeys, keyEnvName('Hosting:ModuleReportSecret', 'mac-new'));
    expect(before.err).toEqual([
      `replay-push: mac-new is not paired yet: no key in ${keyPath}. 6 deliveries wait in ` +
        `${join(root, '.replay-outbox')} and go out on the next run or sync once the key is there.`,
    ]);
    expect(await landedIds('mac-new')).toEqual([]);

    writeKeyFile(clientKeys, serverKey('mac-new'), keyEnvName('Hosting:ModuleReportSecret', 'mac-new'));
    const after = await replayPush(['sync', root], env);
    expect(after.out).toEqual(['delivered 3, already accepted 0, queued 0, rejected 0']);
    expect(after.code).toBe(0);
    const rows = await eventually(async () => {
      const landed = await landedIds('mac-new');
      return landed.length === 3 && landed.every((r) => r.hiddenTestResult) && landed;
    }, 10_000);
    expect(rows.map((r) => r.id).sort()).toEqual(['pair-1', 'pair-2', 'pair-3'].map((t) => `qwen3_8b__${t}__h2`));
  });
});

describe('the bundled replay-push.mjs', () => {
  it('runs from a folder without node_modules and delivers a run folder', async () => {
    const bundleDir = tempDir('replay-bundle-');
    const { outfile } = await buildClient(join(tempDir('replay-build-'), 'replay-push.mjs'));
    copyFileSync(outfile, join(bundleDir, 'replay-push.mjs'));
    const root = join(bundleDir, 'runs');
    mkdirSync(root);
    writeRunFolder(root, {
      result: resultJson({ taskId: 'bundled', host: 'mac-bundle' }),
      patch: SMALL_PATCH,
      task: taskJson('bundled'),
    });
    const keyFile = writeKeyFile(bundleDir, serverKey('mac-bundle'));

    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['replay-push.mjs', 'sync', 'runs', '--endpoint', `${local.url}/hooks/S/ingest`, '--key-file', keyFile, '--json'],
      {
        cwd: bundleDir,
        env: { PATH: process.env.PATH },
      },
    );
    expect(JSON.parse(stdout)).toEqual({ delivered: 1, alreadyAccepted: 0, queued: 0, rejected: 0 });
    expect(await eventually(async () => (await landedIds('mac-bundle')).length === 1)).toBe(true);
  });

  it('imports an Inspect log, its zip read by the bundled reader', async () => {
    const bundleDir = tempDir('replay-bundle-');
    const { outfile } = await buildClient(join(tempDir('replay-build-'), 'replay-push.mjs'));
    copyFileSync(outfile, join(bundleDir, 'replay-push.mjs'));
    const log = join(import.meta.dirname, '../fixtures/import/inspect/log_read_sample.eval');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['replay-push.mjs', 'import', 'inspect', log, '--dry-run', '--host', 'mac-bundle', '--json'],
      { cwd: bundleDir, env: { PATH: process.env.PATH } },
    );
    expect(JSON.parse(stdout)).toMatchObject({ row: { model: 'ollama/gemma3', metricsSource: 'inspect/2' } });
  });
});
