// The outbox survives a client killed mid-send (docs/contract.md §7): replay-push runs as its own process, a relay in
// front of local mode forwards every delivery but, from the fifth on, never passes the 202 back — so the
// pipeline has deliveries the client never saw accepted — and the client is SIGKILLed there. Restarted,
// it resends what it did not see accepted with the same delivery ids: every run lands, none twice.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readBody } from '#infra/local/stand-ins/read-body.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import { replayPush, resultJson, SMALL_PATCH, tempDir, writeKeyFile, writeRunFolder } from '../helpers/run-folders.ts';

const KEY = 'crash-test-key';
// 12 deliveries: when the client dies, 4 were answered and the rest are held or not sent yet.
const RUNS = 12;
let local: TestLocalMode;
let relay: Server;
let relayUrl: string;
let answered = 0;
let onHeld: () => void = () => {};

beforeAll(async () => {
  local = await startTestLocalMode({ spaces: { S: { senders: ['mac-studio-1'] } } }, { 'mac-studio-1': KEY });
  relay = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const body = await readBody(request);
      const upstream = await fetch(`${local.url}${request.url}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-replay-signature': String(request.headers['x-replay-signature']),
          'x-replay-timestamp': String(request.headers['x-replay-timestamp']),
          'x-replay-delivery': String(request.headers['x-replay-delivery']),
        },
        body,
      });
      const answer = await upstream.text();
      // From the fifth delivery on, the pipeline has it but the client never hears back.
      if (++answered >= 5) return onHeld();
      response.writeHead(upstream.status, { 'content-type': 'application/json' }).end(answer);
    })();
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
});
afterAll(async () => {
  relay.closeAllConnections();
  await new Promise((r) => relay.close(r));
  await local.stop();
});

const root = resolve(import.meta.dirname, '../..');

function startClient(args: string[]): ChildProcess {
  return spawn(process.execPath, [join(root, 'bin/replay-push.mjs'), ...args], { cwd: root, stdio: 'ignore' });
}

describe('replay-push killed mid-send', () => {
  it('loses nothing and lands nothing twice after a restart', async () => {
    const runsRoot = tempDir('replay-crash-');
    for (let n = 0; n < RUNS; n++) {
      writeRunFolder(runsRoot, {
        result: resultJson({ taskId: `crash-${n}` }),
        patch: SMALL_PATCH,
        hiddenTest: { status: n % 2 ? 'pass' : 'fail', ranAt: '2026-11-20T11:00:00Z' },
      });
    }
    const keyFile = writeKeyFile(tempDir('replay-key-'), KEY);

    const held = new Promise<void>((r) => (onHeld = r));
    const client = startClient(['sync', runsRoot, '--endpoint', `${relayUrl}/hooks/S/ingest`, '--key-file', keyFile]);
    const exited = new Promise((r) => client.on('exit', (_code, signal) => r(signal)));
    await held;
    client.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const restarted = await replayPush([
      'sync',
      runsRoot,
      '--endpoint',
      `${local.url}/hooks/S/ingest`,
      '--key-file',
      keyFile,
    ]);
    expect(restarted.code).toBe(0);
    const summary = /^delivered (\d+), already accepted (\d+), queued 0, rejected 0$/.exec(restarted.out[0]!);
    expect(summary).not.toBeNull();
    expect(Number(summary![1]) + Number(summary![2])).toBe(RUNS);

    type Row = { id: string; deliveries: string[]; hiddenTestResult: { status: string } | null };
    const rows = await eventually(async () => {
      const { runs } = (await (await fetch(`${local.url}/api/spaces/S/runs`)).json()) as { runs: Row[] };
      return runs.length === RUNS && runs.every((r) => r.hiddenTestResult) && runs;
    }, 15_000);
    expect(new Set(rows.map((r) => r.id)).size).toBe(RUNS);
    expect(rows.filter((r) => r.deliveries.length !== 1)).toEqual([]);
    expect(rows.find((r) => r.id === 'qwen3_8b__crash-1__h2')!.hiddenTestResult!.status).toBe('pass');
    expect(
      (await replayPush(['status', runsRoot, '--json'])).out.map(
        (l) => JSON.parse(l) as { queued: number; accepted: number },
      )[0],
    ).toMatchObject({ queued: 0, accepted: 2 * RUNS });
  });
});
