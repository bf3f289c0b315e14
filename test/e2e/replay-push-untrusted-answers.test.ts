// replay-push does not trust the endpoint's answer (docs/contract.md §7): it reads at most 64 KiB of one, keeps at
// most 500 characters of each of its texts, recovers a state file an older version let grow past its cap, and shows
// every answer text and folder name with its control characters made visible, in `run`, `sync` and `status`.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { replayPush, resultJson, SMALL_PATCH, tempDir, writeKeyFile, writeRunFolder } from '../helpers/run-folders.ts';

/** How the endpoint answers each request, in turn; then 202 "verified". */
let script: ((response: ServerResponse) => void)[] = [];
/** Bytes the endpoint managed to write, over all answers. */
let written = 0;
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const answer = script.shift();
      if (answer) return answer(response);
      response
        .writeHead(202, { 'content-type': 'application/json' })
        .end('{"signature":"verified","status":"queued","ignored":[]}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/S/ingest`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  script = [];
  written = 0;
});

const json = (status: number, body: Record<string, unknown>) => (response: ServerResponse) =>
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** An answer that never ends: 64 KiB chunks for as long as the client reads. */
const endless = (status: number) => (response: ServerResponse) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.write('{"signature":"verified","error":"invalid-delivery","message":"');
  const chunk = 'x'.repeat(64 * 1024);
  const more = () => {
    while (!response.destroyed && written < 512 * 1024 * 1024) {
      written += chunk.length;
      if (!response.write(chunk)) return response.once('drain', more);
    }
    response.end();
  };
  response.on('close', () => response.destroy());
  more();
};

function oneRun(name?: string) {
  const root = tempDir('replay-answers-');
  writeRunFolder(root, { result: resultJson(), patch: SMALL_PATCH, ...(name ? { name } : {}) });
  return { root, keyFile: writeKeyFile(tempDir('replay-key-'), 'answers-key') };
}
const sync = (root: string, keyFile: string, ...more: string[]) =>
  replayPush(['sync', root, '--endpoint', endpoint, '--key-file', keyFile, '--retry-for', '0', ...more]);
const outboxOf = (root: string) => join(root, '.replay-outbox');
const answerRecords = (root: string) =>
  readdirSync(join(outboxOf(root), 'rejected'))
    .filter((n) => n.endsWith('.answer.json'))
    .map((n) => JSON.parse(readFileSync(join(outboxOf(root), 'rejected', n), 'utf8')) as Record<string, unknown>);

// eslint-disable-next-line no-control-regex -- what must never reach a terminal
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

describe('an answer', () => {
  it('is read to 64 KiB at most: an endless one is cut off, and the delivery set aside as answer-too-large', async () => {
    const { root, keyFile } = oneRun();
    script = [endless(400)];
    const started = Date.now();
    const result = await sync(root, keyFile);
    expect(result.code).toBe(3);
    expect(Date.now() - started).toBeLessThan(10_000);
    // What socket buffers took before the cancel reached the endpoint, never the half gigabyte it offered.
    expect(written).toBeLessThan(32 * 1024 * 1024);
    expect(answerRecords(root)).toEqual([
      expect.objectContaining({
        answer: { status: 400, body: expect.objectContaining({ error: 'answer-too-large' }) },
      }),
    ]);
  });

  it('keeps 500 characters of a message, in the answer set aside and in the state file, and later commands run', async () => {
    const { root, keyFile } = oneRun();
    const message = 'No. '.repeat(15_000); // 60,000 characters: within 64 KiB, so read, and cut
    script = [
      json(503, { error: 'busy', message }),
      json(400, { signature: 'verified', error: 'invalid-delivery', message }),
    ];
    expect((await sync(root, keyFile)).code).toBe(1);
    const state = readFileSync(join(outboxOf(root), 'state.json'), 'utf8');
    expect(state.length).toBeLessThan(2000);
    expect(JSON.parse(state)['mac-studio-1'].lastError.message).toMatch(/^503 busy: (No\. )+N?o?\.?…$/u);
    expect((await sync(root, keyFile)).code).toBe(3);
    const kept = (answerRecords(root)[0]!.answer as { body: { message: string } }).body.message;
    expect(Array.from(kept)).toHaveLength(500);
    expect(kept.endsWith('…')).toBe(true);
    expect((await replayPush(['status', root])).code).toBe(0);
  });
});

describe('a state file over its read cap', () => {
  it('is set aside with a warning and rebuilt from the ledger, so status, run and sync go on', async () => {
    const { root, keyFile } = oneRun();
    expect((await sync(root, keyFile)).code).toBe(0);
    const acceptedAt = JSON.parse(readFileSync(join(outboxOf(root), 'ledger.jsonl'), 'utf8').split('\n')[0]!)
      .acceptedAt as string;
    // What an older replay-push wrote after a 5 MiB message.
    const huge = {
      'mac-studio-1': { lastError: { at: acceptedAt, message: 'x'.repeat(5 * 1024 * 1024) }, lastAcceptedAt: null },
    };
    writeFileSync(join(outboxOf(root), 'state.json'), JSON.stringify(huge));

    const status = await replayPush(['status', root, '--json']);
    expect(status.code).toBe(0);
    expect(status.err).toEqual([
      expect.stringMatching(
        /^replay-push: warning: .*state\.json was \d+ bytes, over its 4 MiB cap: set aside as .*state\.set-aside-\d+\.json/,
      ),
    ]);
    expect(JSON.parse(status.out[0]!).hosts).toEqual([
      expect.objectContaining({ host: 'mac-studio-1', lastAcceptedAt: acceptedAt, lastError: null }),
    ]);
    const asides = readdirSync(outboxOf(root)).filter((n) => n.startsWith('state.set-aside-'));
    expect(asides).toHaveLength(1);
    expect(statSync(join(outboxOf(root), asides[0]!)).size).toBeGreaterThan(5 * 1024 * 1024);
    expect((await sync(root, keyFile)).code).toBe(0);
    expect(statSync(join(outboxOf(root), 'state.json')).size).toBeLessThan(2000);
  });
});

describe('what reaches the terminal', () => {
  const hostile =
    'Denied.\u001b]0;pwned\u0007\u001b[2J\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\\u202e\u009b31m\nreplay-push: delivered 1, already accepted 0, queued 0, rejected 0';

  it('shows every control character of an answer visibly, in sync, run and status, and forges no line', async () => {
    const { root, keyFile } = oneRun();
    // Answered busy until sync gives up after its wait, whose line quotes the answer.
    script = Array.from({ length: 5 }, () => json(503, { error: 'busy\u001b[31m', message: hostile }));
    const synced = await sync(root, keyFile, '--retry-for', '1');
    script = [json(400, { signature: 'verified', error: 'invalid\u001b[31m', message: hostile })];
    const ran = await replayPush([
      'run',
      readdirSync(root)
        .map((n) => join(root, n))
        .find((p) => !p.endsWith('.replay-outbox'))!,
      '--endpoint',
      endpoint,
      '--key-file',
      keyFile,
    ]);
    expect(ran.code).toBe(3);
    const status = await replayPush(['status', root]);
    for (const lines of [synced.err, synced.out, ran.err, ran.out, status.out, status.err]) {
      for (const line of lines) expect(line).not.toMatch(CONTROL);
      expect(lines.some((l) => l.startsWith('replay-push: delivered'))).toBe(false);
    }
    expect(synced.err.join('\n')).toContain('Denied.\\u001b]0;pwned\\u0007\\u001b[2J');
    expect(ran.err.join('\n')).toContain('\\u202e\\u009b31m\\u000areplay-push: delivered');
    expect(status.out.join('\n')).toContain('invalid\\u001b[31m: Denied.\\u001b]0;pwned');
  });

  it('shows a run folder name with control characters visibly', async () => {
    const root = tempDir('replay-answers-');
    const name = 'run-\u001b]0;pwned\u0007-\u202eevil';
    writeRunFolder(root, { name, result: resultJson({ outcome: 'exploded' }) });
    const keyFile = writeKeyFile(tempDir('replay-key-'), 'answers-key');
    const synced = await sync(root, keyFile);
    expect(synced.code).toBe(2);
    expect(synced.err.join('\n')).toContain('run-\\u001b]0;pwned\\u0007-\\u202eevil');
    for (const line of [...synced.err, ...synced.out]) expect(line).not.toMatch(CONTROL);
  });
});
