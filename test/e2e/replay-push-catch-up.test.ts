// Catch-up across an outage (docs/contract.md §7): `replay-push sync` of 24 run folders while local mode goes down
// halfway (its connections cut, its in-memory queues lost) and comes back on the same port with the same data.
// The client keeps retrying with backoff; in the end every run is there once, with its issue and hidden-test
// result. A SIGKILLed `npm start` process keeping what it answered 202 is restart.test.ts's.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
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

// Three times the client's 8 concurrent sends: most of the second half is still to send when the server goes.
const RUNS = 24;
const TASKS = 6;
const MODELS = ['qwen3:8b', 'qwen3:32b', 'gemma3:27b', 'llama4:scout'];
const KEY = 'catch-up-key';
const CONFIG = { spaces: { S: { senders: ['mac-studio-1'] } } };
const started: TestLocalMode[] = [];
afterAll(() => Promise.all(started.map((local) => local.stop())));

async function start(options: Parameters<typeof startTestLocalMode>[2] = {}): Promise<TestLocalMode> {
  const local = await startTestLocalMode(CONFIG, { 'mac-studio-1': KEY }, options);
  started.push(local);
  return local;
}

type Row = { id: string; deliveries: string[]; hiddenTestResult: { status: string } | null };

async function allRows(url: string): Promise<Row[]> {
  const { runs } = (await (await fetch(`${url}/api/spaces/S/runs?limit=1000`)).json()) as { runs: Row[] };
  return runs;
}

describe('replay-push sync across a server outage', () => {
  it('delivers every run folder once, with its issue and hidden-test result', async () => {
    const dir = tempDir('replay-catch-up-');
    const keyFile = writeKeyFile(dir, KEY);
    const runsRoot = join(dir, 'runs');
    for (let n = 0; n < RUNS; n++) {
      const taskId = `catch-up-${n % TASKS}`;
      writeRunFolder(runsRoot, {
        name: `run-${n}`,
        result: resultJson({ taskId, model: MODELS[Math.floor(n / TASKS)] }),
        patch: SMALL_PATCH,
        task: taskJson(taskId, { issueNumber: 100 + (n % TASKS) }),
        hiddenTest: { status: n % 3 ? 'pass' : 'fail', ranAt: '2026-11-20T11:00:00Z' },
      });
    }

    const first = await start({ restartable: true });
    const port = Number(new URL(first.url).port);
    let delivered = 0;
    // Stopped after half the runs were delivered; started again at once, while sync keeps retrying.
    let restarted: Promise<TestLocalMode> | null = null;
    const sync = await replayPush(
      ['sync', runsRoot, '--endpoint', `${first.url}/hooks/S/ingest`, '--key-file', keyFile, '--retry-for', '30'],
      {},
      (line) => {
        if (line.startsWith('delivered ') && ++delivered === RUNS / 2) {
          started.splice(started.indexOf(first), 1);
          restarted = first.stop().then(() => start({ port, dataDir: first.dataDir, keysDir: first.keysDir }));
        }
      },
    );
    expect(restarted).not.toBeNull();
    expect(sync.err.some((l) => /not accepted yet \(last answer: network: .*\); retrying in/.test(l))).toBe(true);
    expect(sync.out).toEqual([`delivered ${RUNS}, already accepted 0, queued 0, rejected 0`]);
    expect(sync.code).toBe(0);

    const second = await restarted!;
    const rows = await eventually(async () => {
      const landed = await allRows(second.url);
      return landed.length === RUNS && landed.every((r) => r.hiddenTestResult) && landed;
    }, 20_000);
    expect(new Set(rows.map((r) => r.id)).size).toBe(RUNS);
    expect(rows.filter((r) => r.hiddenTestResult!.status === 'fail')).toHaveLength(Math.ceil(RUNS / 3));
    const { issues } = (await (await fetch(`${second.url}/api/spaces/S/issues`)).json()) as {
      issues: { taskId: string }[];
    };
    expect(new Set(issues.map((i) => i.taskId)).size).toBe(TASKS);
  }, 60_000); // two local-mode starts on a shared machine
});
