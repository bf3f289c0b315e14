// The runner host against local mode (docs/contract.md §7): a runs root where every file of a run folder has in turn
// been made hostile (a link to a secret, a link to the host key, a hard link to the secret, a FIFO, a directory,
// a file past its cap) and a run folder that is itself a link, synced beside good folders. Every hostile folder is
// refused by name with exit 2, every good one lands, and the secret and the key are found nowhere: not in what
// replay-push printed or queued, not in any API answer, not in any file of local mode's data folder. Then a front
// that answers 307 towards local mode's real ingest URL: every delivery goes out once, is set aside in
// outbox/rejected naming the Location (exit 3), and nothing reaches local mode.
import { execFileSync } from 'node:child_process';
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MAX_RUN_FILE_BYTES, RUN_FILES } from '#runner/run-folder.ts';
import { eventually, queueDrained, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import { startRecordingEndpoint } from '../helpers/recording-endpoint.ts';
import {
  filesUnder,
  replayPush,
  resultJson,
  SMALL_PATCH,
  taskJson,
  tempDir,
  writeKeyFile,
  writeRunFolder,
  type CliRun,
} from '../helpers/run-folders.ts';

const HOST = 'mac-studio-1';
const KEY = 'runner-host-reliability-key-of-mac-studio-1';
const SECRET = 'aws_secret_access_key = RELIABILITY/SECRET/never-leaves-the-host';
const GOOD = 20;
const tally = { hostileFolders: 0, refusedByName: 0, goodLanded: 0, redirectedDeliveries: 0, requestsToFront: 0 };
let local: TestLocalMode;
let keyFile: string;
let secretFile: string;

beforeAll(async () => {
  local = await startTestLocalMode({ spaces: { S: { senders: [HOST] } } }, { [HOST]: KEY });
  keyFile = writeKeyFile(tempDir('replay-key-'), KEY);
  secretFile = join(tempDir('replay-home-'), 'credentials');
  writeFileSync(secretFile, `[default]\n${SECRET}\n`, { mode: 0o600 });
});
afterAll(async () => {
  console.log(`reliability runner host: ${JSON.stringify(tally)}`);
  await local.stop();
});

const HOSTILE: Record<string, (path: string, file: keyof typeof MAX_RUN_FILE_BYTES) => void> = {
  'link-to-secret': (path) => symlinkSync(secretFile, path),
  'link-to-key': (path) => symlinkSync(keyFile, path),
  'hard-link-to-secret': (path) => linkSync(secretFile, path),
  fifo: (path) => void execFileSync('mkfifo', [path]),
  directory: (path) => mkdirSync(path),
  // Sparse: the size is past the cap without the disk holding it.
  'past-its-cap': (path, file) => {
    writeFileSync(path, '');
    truncateSync(path, MAX_RUN_FILE_BYTES[file] + 1);
  },
};

const findIn = (text: string) => [SECRET, KEY, 'RELIABILITY/SECRET'].filter((s) => text.includes(s));

describe('a runs root full of hostile run folders, synced to local mode', () => {
  const root = tempDir('replay-runs-');
  const expectedRefusals: string[] = [];
  let run: CliRun;

  beforeAll(async () => {
    for (let i = 0; i < GOOD; i++)
      writeRunFolder(root, {
        result: resultJson({ taskId: `good-${i}` }),
        patch: SMALL_PATCH,
        summary: `Run ${i} changed a to b.`,
        task: taskJson(`good-${i}`),
      });
    for (const file of Object.values(RUN_FILES)) {
      for (const [kind, make] of Object.entries(HOSTILE)) {
        const taskId = `hostile-${kind}-${file.replace('.', '-')}`;
        const folder = writeRunFolder(root, {
          result: resultJson({ taskId }),
          patch: SMALL_PATCH,
          summary: 'x',
          task: taskJson(taskId),
          hiddenTest: { status: 'pass', ranAt: '2026-11-20T11:00:00Z' },
          trajectory: [
            { type: 'model-call', step: 1, startedAt: '2026-11-20T10:00:00Z', endedAt: '2026-11-20T10:00:05Z' },
          ],
        });
        rmSync(join(folder, file));
        make(join(folder, file), file);
        expectedRefusals.push(join(folder, file));
      }
    }
    const elsewhere = writeRunFolder(tempDir('replay-elsewhere-'), {
      result: resultJson({ taskId: 'linked-folder' }),
      summary: SECRET,
    });
    symlinkSync(elsewhere, join(root, 'linked-folder__h2'));
    expectedRefusals.push(join(root, 'linked-folder__h2'));
    tally.hostileFolders = expectedRefusals.length;

    run = await replayPush(['sync', root, '--endpoint', `${local.url}/hooks/S/ingest`, '--key-file', keyFile]);
  });

  it('refuses every hostile folder by name with exit 2, and delivers every good one', async () => {
    expect(run.code).toBe(2);
    for (const path of expectedRefusals) {
      const named = run.err.some((line) => line.startsWith(`replay-push: ${path}: `));
      if (named) tally.refusedByName++;
      expect({ path, named }).toEqual({ path, named: true });
    }
    expect(run.out).toEqual([`delivered ${GOOD}, already accepted 0, queued 0, rejected 0`]);
    const landed = await eventually(async () => {
      const { runs } = (await (await fetch(`${local.url}/api/spaces/S/runs?limit=1000`)).json()) as {
        runs: { taskId: string }[];
      };
      return runs.length >= GOOD ? runs : null;
    }, 30_000);
    tally.goodLanded = landed.length;
    expect(landed.map((r) => r.taskId).sort()).toEqual(Array.from({ length: GOOD }, (_, i) => `good-${i}`).sort());
  });

  it('finds the secret and the key nowhere: output, outbox, API answers, data folder', async () => {
    expect(findIn([...run.out, ...run.err].join('\n'))).toEqual([]);
    expect(filesUnder(join(root, '.replay-outbox')).filter((f) => findIn(f.text).length)).toEqual([]);
    const answers: string[] = [];
    const get = async (path: string) => answers.push(await (await fetch(`${local.url}/api/spaces/S${path}`)).text());
    await get('/runs?limit=1000');
    await get('/issues');
    await get('/hosts');
    for (let i = 0; i < GOOD; i++) {
      await get(`/runs/qwen3_8b__good-${i}__h2/summary`);
      await get(`/runs/qwen3_8b__good-${i}__h2/patch`);
    }
    expect(findIn(answers.join('\n'))).toEqual([]);
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk(local.dataDir);
    const found = files
      .filter((f) => !f.startsWith(local.keysDir))
      .map((file) => ({ file, found: findIn(readFileSync(file).toString('latin1')) }));
    expect(found.filter((f) => f.found.length)).toEqual([]);
  });
});

describe('a front that redirects to the real ingest URL', () => {
  it('sends each delivery once, sets it aside naming the Location (exit 3), and nothing reaches local mode', async () => {
    const ingest = `${local.url}/hooks/S/ingest`;
    const front = await startRecordingEndpoint();
    front.answer = () => ({ status: 307, headers: { location: ingest } });
    const root = tempDir('replay-runs-');
    const folders = 10;
    for (let i = 0; i < folders; i++)
      writeRunFolder(root, {
        result: resultJson({ taskId: `redirected-${i}` }),
        patch: SMALL_PATCH,
        task: taskJson(`redirected-${i}`),
      });
    try {
      const run = await replayPush(['sync', root, '--endpoint', front.endpoint, '--key-file', keyFile]);
      expect(run.code).toBe(3);
      expect(run.out).toEqual([`delivered 0, already accepted 0, queued 0, rejected ${folders}`]);
      tally.requestsToFront = front.requests.length;
      // Each folder's issue record and run, once each: a 3xx is never retried.
      expect(front.requests).toHaveLength(2 * folders);
      expect(new Set(front.requests.map((r) => r.headers['x-replay-delivery'])).size).toBe(2 * folders);
      const rejected = filesUnder(join(root, '.replay-outbox', 'rejected')).filter((f) =>
        f.path.endsWith('.answer.json'),
      );
      tally.redirectedDeliveries = rejected.length;
      expect(rejected).toHaveLength(2 * folders);
      for (const file of rejected)
        expect(JSON.parse(file.text)).toMatchObject({ answer: { status: 307, body: { location: ingest } } });
      expect(filesUnder(join(root, '.replay-outbox', 'pending'))).toEqual([]);
    } finally {
      await front.stop();
    }
    await queueDrained(local, 'landing');
    for (let i = 0; i < folders; i++)
      expect((await fetch(`${local.url}/api/spaces/S/runs/qwen3_8b__redirected-${i}__h2`)).status).toBe(404);
    const { issues } = (await (await fetch(`${local.url}/api/spaces/S/issues`)).json()) as {
      issues: { taskId: string }[];
    };
    expect(issues.filter((issue) => issue.taskId.startsWith('redirected-'))).toEqual([]);
  });
});
