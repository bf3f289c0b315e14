// How replay-push treats each answer (docs/contract.md §7), against an HTTP endpoint that checks the v2 signature for
// space S like ingest does and answers what each test scripts: retried answers keep the delivery (and its
// X-Replay-Delivery id) until a 202 "verified"; a 202 without "verified" is not an acceptance.
import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { presentedSignature, verifySignature, type RequestHeaders } from '#shared/signature.ts';
import { readBody } from '#infra/local/stand-ins/read-body.ts';
import { replayPush, resultJson, SMALL_PATCH, tempDir, writeKeyFile, writeRunFolder } from '../helpers/run-folders.ts';

const KEY = 'retries-key';
interface Seen {
  deliveryId: string;
  kind: string;
  body: string;
  timestamp: number;
  signature: string;
}
let seen: Seen[] = [];
/**
 * The answers to give, in turn (then 202); `advanceClockMs` moves the clock a test hands replay-push on before the
 * answer goes out, so the retry that follows is sent at a later time.
 */
let script: { status: number; body: Record<string, unknown>; advanceClockMs?: number }[] = [];
/** The fake clock of the tests that give replay-push one (the others sign with Date.now). */
let clockMs = 0;
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    void readBody(request).then((text) => {
      const raw = Buffer.from(text);
      const presented = presentedSignature(request.headers as RequestHeaders, 'S');
      const fresh = 'timestamp' in presented && Math.abs(presented.timestamp - Date.now() / 1000) <= 300;
      const signed =
        fresh && 'version' in presented && verifySignature(raw, presented, [{ host: 'mac-studio-1', keys: [KEY] }]);
      const body = JSON.parse(text) as { kind: string; id?: string };
      seen.push({
        deliveryId: String(request.headers['x-replay-delivery']),
        kind: body.kind,
        body: text,
        timestamp: Number(request.headers['x-replay-timestamp']),
        signature: String(request.headers['x-replay-signature']),
      });
      const scripted = signed && signed.ok ? script.shift() : undefined;
      clockMs += scripted?.advanceClockMs ?? 0;
      const answer =
        signed && signed.ok
          ? (scripted ?? {
              status: 202,
              body: { signature: 'verified', id: body.id, status: 'queued', ignored: [] },
            })
          : { status: 401, body: { signature: 'invalid', error: 'bad-signature' } };
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/S/ingest`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen = [];
  script = [];
});

function oneRun(withHiddenTest = false): { root: string; keyFile: string } {
  const root = tempDir('replay-retries-');
  writeRunFolder(root, {
    result: resultJson(),
    patch: SMALL_PATCH,
    ...(withHiddenTest ? { hiddenTest: { status: 'pass', ranAt: '2026-11-20T11:00:00Z' } } : {}),
  });
  return { root, keyFile: writeKeyFile(tempDir('replay-key-'), KEY) };
}

describe('answers that keep a delivery queued', () => {
  it('retries 503, 429 and 408 with the same delivery id until a 202 "verified"', async () => {
    const { root, keyFile } = oneRun();
    script = [503, 429, 408].map((status) => ({ status, body: { error: 'busy', message: 'Try again.' } }));
    const result = await replayPush(['sync', root, '--endpoint', endpoint, '--key-file', keyFile, '--retry-for', '30']);
    expect(result.code).toBe(0);
    expect(result.out).toEqual(['delivered 1, already accepted 0, queued 0, rejected 0']);
    expect(seen).toHaveLength(4);
    expect(new Set(seen.map((s) => s.deliveryId)).size).toBe(1);
    expect(result.err.filter((l) => l.includes('retrying in'))).toHaveLength(3);
  });

  it('signs each attempt anew when it is sent (v2, space S): the retry has a later timestamp, the same body and id', async () => {
    const { root, keyFile } = oneRun();
    // A minute ahead of this machine (within the stand-in's 5 minutes): only the given clock can stamp these seconds.
    const start = (Math.floor(Date.now() / 1000) + 60) * 1000;
    clockMs = start;
    script = [{ status: 503, body: { error: 'busy', message: 'Try again.' }, advanceClockMs: 1000 }];
    const result = await replayPush(
      ['sync', root, '--endpoint', endpoint, '--key-file', keyFile, '--retry-for', '30'],
      {},
      undefined,
      () => clockMs,
    );
    expect(result.code).toBe(0);
    const [first, retry] = seen;
    expect(seen).toHaveLength(2);
    expect(first!.timestamp).toBe(start / 1000);
    expect(retry!.timestamp).toBe(start / 1000 + 1);
    expect(retry!.signature).not.toBe(first!.signature);
    expect([retry!.deliveryId, retry!.body]).toEqual([first!.deliveryId, first!.body]);
  });

  it('keeps a delivery refused for its key (401) queued, exits 1, and shows the last error in status; the next sync sends it again', async () => {
    const { root } = oneRun();
    const wrongKey = writeKeyFile(tempDir('replay-key-'), 'not-the-key');
    const refused = await replayPush([
      'sync',
      root,
      '--endpoint',
      endpoint,
      '--key-file',
      wrongKey,
      '--retry-for',
      '0',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.out).toEqual(['delivered 0, already accepted 0, queued 1, rejected 0']);
    const status = await replayPush(['status', root]);
    expect(status.out.join('\n')).toMatch(/mac-studio-1: queued 1 runs.*\n {4}last error .*: 401 bad-signature/);

    const right = writeKeyFile(tempDir('replay-key-'), KEY);
    const later = await replayPush(['sync', root, '--endpoint', endpoint, '--key-file', right]);
    expect(later.out).toEqual(['delivered 1, already accepted 0, queued 0, rejected 0']);
    expect(new Set(seen.map((s) => s.deliveryId)).size).toBe(1);
  });

  it('does not take a 202 without "signature":"verified" for an acceptance', async () => {
    const { root, keyFile } = oneRun();
    script = [{ status: 202, body: { status: 'queued' } }];
    const result = await replayPush(['sync', root, '--endpoint', endpoint, '--key-file', keyFile, '--retry-for', '0']);
    expect(result.code).toBe(1);
    expect(result.out).toEqual(['delivered 0, already accepted 0, queued 1, rejected 0']);
  });

  it('sends a hidden-test result only after its run is accepted', async () => {
    const { root, keyFile } = oneRun(true);
    script = [{ status: 503, body: { error: 'busy' } }];
    const result = await replayPush(['sync', root, '--endpoint', endpoint, '--key-file', keyFile, '--retry-for', '30']);
    expect(result.code).toBe(0);
    expect(seen.map((s) => s.kind)).toEqual(['run', 'run', 'hidden-test']);
  });
});

describe('answers that reject a delivery for good', () => {
  it('sets aside a 400 "verified" and a 413, and exits 3', async () => {
    for (const status of [400, 413]) {
      const { root, keyFile } = oneRun();
      script = [
        {
          status,
          body: { signature: 'verified', error: status === 400 ? 'invalid-delivery' : 'too-large', message: 'No.' },
        },
      ];
      const result = await replayPush([
        'sync',
        root,
        '--endpoint',
        endpoint,
        '--key-file',
        keyFile,
        '--retry-for',
        '30',
      ]);
      expect(result.code).toBe(3);
      expect(result.out).toEqual(['delivered 0, already accepted 0, queued 0, rejected 1']);
    }
    expect(seen).toHaveLength(2);
  });

  it("sets aside a 403 not-owner (another host's run or task) and exits 3, while a 403 sender-not-listed stays queued", async () => {
    const { root, keyFile } = oneRun();
    const sync = () =>
      replayPush(['sync', root, '--endpoint', endpoint, '--key-file', keyFile, '--retry-for', '0', '--json']);
    script = [{ status: 403, body: { signature: 'unauthorized', error: 'sender-not-listed', message: 'No.' } }];
    expect((await sync()).code).toBe(1);
    script = [{ status: 403, body: { signature: 'verified', error: 'not-owner', message: 'Not yours.' } }];
    const result = await sync();
    expect(result.code).toBe(3);
    expect(JSON.parse(result.out[0]!)).toMatchObject({ delivered: 0, queued: 0, rejected: 1 });
    expect(
      readdirSync(join(root, '.replay-outbox', 'rejected')).filter((n) => n.endsWith('.answer.json')),
    ).toHaveLength(1);
    await sync();
    expect(seen).toHaveLength(2);
  });

  it('keeps a 425 times-ahead queued (a run recorded while the clock ran fast) and sends it again', async () => {
    const { root, keyFile } = oneRun();
    const sync = () =>
      replayPush(['sync', root, '--endpoint', endpoint, '--key-file', keyFile, '--retry-for', '0', '--json']);
    const body = { signature: 'verified', error: 'times-ahead', message: 'Not yet.', details: ['row.finishedAt: …'] };
    script = [{ status: 425, body }];
    expect((await sync()).code).toBe(1);
    expect(JSON.parse((await sync()).out[0]!)).toMatchObject({ delivered: 1, rejected: 0 });
    expect(seen).toHaveLength(2);
  });

  it('sets aside a 409 id-collision (another run has its id) and exits 3, never sending it again', async () => {
    const { root, keyFile } = oneRun();
    const sync = () =>
      replayPush(['sync', root, '--endpoint', endpoint, '--key-file', keyFile, '--retry-for', '0', '--json']);
    const body = { signature: 'verified', error: 'id-collision', message: 'Run id x is already another run.' };
    script = [{ status: 409, body }];
    const result = await sync();
    expect(result.code).toBe(3);
    expect(JSON.parse(result.out[0]!)).toMatchObject({ delivered: 0, queued: 0, rejected: 1 });
    const answers = readdirSync(join(root, '.replay-outbox', 'rejected')).filter((n) => n.endsWith('.answer.json'));
    expect(answers).toHaveLength(1);
    await sync();
    expect(seen).toHaveLength(1);
  });
});

describe('replay-push check', () => {
  it('says the clock is off, not that the host is unpaired, when the endpoint answers 401 stale', async () => {
    const { keyFile } = oneRun();
    script = [
      { status: 401, body: { signature: 'invalid', error: 'stale', message: 'X-Replay-Timestamp is 400 s behind.' } },
    ];
    const result = await replayPush(['check', '--endpoint', endpoint, '--host', 'mac-studio-1', '--key-file', keyFile]);
    expect(result.code).toBe(3);
    expect(result.err).toEqual([
      `replay-push: clock off: ${endpoint} refused the check's timestamp; set this host's clock (network time) and check again. X-Replay-Timestamp is 400 s behind.`,
    ]);
  });

  it('says a key paired for another space is, not that the host is unlisted, on a 403 key-of-another-space', async () => {
    const { keyFile } = oneRun();
    const message = 'Host "mac-studio-1" signed with its key under "TeamB:Keys".';
    script = [{ status: 403, body: { signature: 'unauthorized', error: 'key-of-another-space', message } }];
    const result = await replayPush(['check', '--endpoint', endpoint, '--host', 'mac-studio-1', '--key-file', keyFile]);
    expect(result.code).toBe(3);
    expect(result.err).toEqual([
      `replay-push: paired for another space: this key is host "mac-studio-1"'s for another space; sign with the key this space keeps for it (--key-file). ${message}`,
    ]);
  });
});
