// Catch-up across an outage (docs/contract.md §7): `replay-push sync` of 200 run folders while local mode (a real
// `npm start` process) is SIGKILLed halfway and started again on the same port. The client keeps
// retrying with backoff; in the end every run is there once, with its issue and hidden-test result.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { keyEnvName } from '../../shared/adapters/key-names.ts';
import { eventually } from '../helpers/local-mode.ts';
import { killProcess, startLocalProcess, type LocalProcess } from '../helpers/local-process.ts';
import {
  replayPush,
  resultJson,
  SMALL_PATCH,
  taskJson,
  tempDir,
  writeKeyFile,
  writeRunFolder,
} from '../helpers/run-folders.ts';

const RUNS = 200;
const TASKS = 50;
const MODELS = ['qwen3:8b', 'qwen3:32b', 'gemma3:27b', 'llama4:scout'];
const KEY = 'catch-up-key';
const started: LocalProcess[] = [];
afterAll(() => started.splice(0).forEach(killProcess));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

async function start(env: Record<string, string>): Promise<LocalProcess> {
  const local = await startLocalProcess(env);
  started.push(local);
  return local;
}

type Row = { id: string; deliveries: string[]; hiddenTestResult: { status: string } | null };

async function allRows(url: string): Promise<Row[]> {
  const { runs } = (await (await fetch(`${url}/api/spaces/S/runs?limit=1000`)).json()) as { runs: Row[] };
  return runs;
}

describe('replay-push sync across a server outage', () => {
  it('delivers all 200 run folders once, with their issues and hidden-test results', async () => {
    const dir = tempDir('replay-catch-up-');
    mkdirSync(join(dir, 'keys'));
    const keyFile = writeKeyFile(join(dir, 'keys'), KEY, keyEnvName('Hosting:ModuleReportSecret', 'mac-studio-1'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ spaces: { S: { senders: ['mac-studio-1'] } } }));
    const env = {
      REPLAY_CONFIG: join(dir, 'config.json'),
      REPLAY_DATA_DIR: join(dir, 'data'),
      REPLAY_KEYS_DIR: join(dir, 'keys'),
      PORT: String(await freePort()),
    };

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

    const first = await start(env);
    let delivered = 0;
    // Killed after half the runs were delivered; started again at once, while sync keeps retrying.
    let restarted: Promise<LocalProcess> | null = null;
    const sync = await replayPush(
      ['sync', runsRoot, '--endpoint', `${first.url}/hooks/S/ingest`, '--key-file', keyFile, '--retry-for', '120'],
      {},
      (line) => {
        if (line.startsWith('delivered ') && ++delivered === RUNS / 2) {
          restarted = killProcess(first).then(() => start(env));
        }
      },
    );
    expect(restarted).not.toBeNull();
    expect(sync.err.some((l) => /not accepted yet \(last answer: network: .*\); retrying in/.test(l))).toBe(true);
    expect(sync.out).toEqual([`delivered ${RUNS}, already accepted 0, queued 0, rejected 0`]);
    expect(sync.code).toBe(0);

    const second = await restarted!;
    const rows = await eventually(
      async () => {
        const landed = await allRows(second.url);
        return landed.length === RUNS && landed.every((r) => r.hiddenTestResult) && landed;
      },
      20_000,
      200,
    );
    expect(new Set(rows.map((r) => r.id)).size).toBe(RUNS);
    expect(rows.filter((r) => r.hiddenTestResult!.status === 'fail')).toHaveLength(Math.ceil(RUNS / 3));
    const { issues } = (await (await fetch(`${second.url}/api/spaces/S/issues`)).json()) as {
      issues: { taskId: string }[];
    };
    expect(new Set(issues.map((i) => i.taskId)).size).toBe(TASKS);
  }, 240_000); // two local-mode processes, 200 runs with their issues and hidden-test results on a shared machine
});
