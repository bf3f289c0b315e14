// Where replay-push sends a signed run (docs/contract.md §7): https anywhere, plain http only to this machine, refused
// with exit 2 before any run folder is read (--dry-run too); and never where a redirect points. A 3xx is a
// rejection naming its Location: the delivery moves to outbox/rejected (exit 3) after one request, not retried.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { postSigned } from '#runner/push.ts';
import { startRecordingEndpoint, type RecordingEndpoint } from '../helpers/recording-endpoint.ts';
import {
  replayPush,
  resultJson,
  SMALL_PATCH,
  taskJson,
  tempDir,
  writeKeyFile,
  writeRunFolder,
} from '../helpers/run-folders.ts';

const KEY = 'transport-test-key-of-mac-studio-1-7c2e91';
let recording: RecordingEndpoint;
let keyFile: string;

beforeAll(async () => {
  recording = await startRecordingEndpoint();
  keyFile = writeKeyFile(tempDir('replay-key-'), KEY);
});
afterAll(async () => {
  await recording.stop();
});
beforeEach(() => {
  recording.requests.length = 0;
  recording.answer = () => undefined;
});

describe('plain http', () => {
  const remote = 'http://ingest.example.com/hooks/S/ingest';
  const refusal = (endpoint: string) =>
    `replay-push: --endpoint ${endpoint} is plain http to a host that is not this machine: ` +
    `signed runs go over https only (http is for local mode on 127.0.0.1, ::1 or localhost).`;

  it.each([
    ['run', ['run', '/no/such/run-folder']],
    ['run --dry-run', ['run', '/no/such/run-folder', '--dry-run']],
    ['sync', ['sync', '/no/such/runs-root']],
    ['sync --dry-run', ['sync', '/no/such/runs-root', '--dry-run']],
    ['issue', ['issue', '/no/such/task.json', '--host', 'mac-studio-1']],
    ['hidden-test', ['hidden-test', '/no/such/run-folder']],
  ])('to another host is refused by %s with exit 2, before anything is read', async (_, args) => {
    // Every path above is missing: a command that read anything first would name it instead.
    const run = await replayPush([...args, '--endpoint', remote, '--key-file', keyFile]);
    expect(run.code).toBe(2);
    expect(run.err[0]).toBe(refusal(remote));
    expect(run.out).toEqual([]);
  });

  it('to another host is refused when it comes from REPLAY_ENDPOINT too, IP addresses included', async () => {
    for (const endpoint of [
      'http://10.0.0.5/hooks/S/ingest',
      'http://128.0.0.1/hooks/S/ingest',
      'http://[::2]:8787/hooks/S/ingest',
      'http://localhost.example.com/hooks/S/ingest',
      'http://[::ffff:7f00:1]/hooks/S/ingest',
    ]) {
      const run = await replayPush(['sync', '/no/such/runs-root', '--dry-run'], { REPLAY_ENDPOINT: endpoint });
      expect({ endpoint, code: run.code, err: run.err[0] }).toEqual({ endpoint, code: 2, err: refusal(endpoint) });
    }
  });

  it('to this machine (127.0.0.0/8, ::1, localhost) and https anywhere are accepted, the scheme in any case', async () => {
    const root = tempDir('replay-runs-');
    const folder = writeRunFolder(root, { result: resultJson({ taskId: 'loopback' }), patch: SMALL_PATCH });
    for (const endpoint of [
      'http://127.0.0.1:8787/hooks/S/ingest',
      'http://127.9.8.7/hooks/S/ingest',
      'http://[::1]:8787/hooks/S/ingest',
      'http://localhost:8787/hooks/S/ingest',
      'https://ingest.example.com/hooks/S/ingest',
      'HTTPS://ingest.example.com/hooks/S/ingest',
      'Http://127.0.0.1:8787/hooks/S/ingest',
    ]) {
      const run = await replayPush(['run', folder, '--dry-run', '--endpoint', endpoint, '--host', 'mac-studio-1']);
      expect({ endpoint, code: run.code }).toEqual({ endpoint, code: 0 });
    }
  });
});

describe('a redirecting endpoint', () => {
  it.each([301, 302, 303, 307, 308])(
    'answering %i: one request, never followed, set aside in outbox/rejected naming the Location (exit 3)',
    async (status) => {
      const elsewhere = `${recording.origin}/elsewhere/hooks/S/ingest`;
      recording.answer = (request) =>
        request.url === '/hooks/S/ingest' ? { status, headers: { location: '/elsewhere/hooks/S/ingest' } } : undefined;
      const root = tempDir('replay-runs-');
      writeRunFolder(root, {
        result: resultJson({ taskId: `redirect-${status}` }),
        patch: SMALL_PATCH,
        hiddenTest: { status: 'pass', ranAt: '2026-11-20T11:00:00Z' },
      });
      const run = await replayPush(['sync', root, '--endpoint', recording.endpoint, '--key-file', keyFile]);
      expect(run.code).toBe(3);
      expect(run.out).toEqual(['delivered 0, already accepted 0, queued 0, rejected 1']);
      expect(run.err[0]).toBe(
        `rejected run qwen3_8b__redirect-${status}__h2: ${status} redirected: The endpoint redirects (${status}) ` +
          `to ${elsewhere}; replay-push never follows a redirect: if that is the ingest URL, give it as --endpoint.`,
      );
      // The run once; its hidden-test result is set aside with it, unsent; nothing reached the Location.
      expect(recording.requests.map((r) => r.url)).toEqual(['/hooks/S/ingest']);
      const rejectedDir = join(root, '.replay-outbox', 'rejected');
      const answers = readdirSync(rejectedDir).filter((n) => n.endsWith('.answer.json'));
      expect(answers).toHaveLength(2);
      const answer = answers
        .map((n) => JSON.parse(readFileSync(join(rejectedDir, n), 'utf8')) as { kind: string; answer: unknown })
        .find((a) => a.kind === 'run');
      expect(answer?.answer).toEqual({
        status,
        body: { error: 'redirected', location: elsewhere, message: expect.stringContaining(elsewhere) as unknown },
      });
      expect(readdirSync(join(root, '.replay-outbox', 'pending'))).toEqual([]);

      const again = await replayPush(['sync', root, '--endpoint', recording.endpoint, '--key-file', keyFile]);
      expect(again.out).toEqual(['delivered 0, already accepted 0, queued 0, rejected 1']);
      expect(recording.requests).toHaveLength(1);
    },
  );

  it('answers the same body again on a second call: no detached buffer, no network error', async () => {
    recording.answer = () => ({ status: 307, headers: { location: 'https://elsewhere.example.com/ingest' } });
    const body = Buffer.from('{"kind":"run"}');
    for (let i = 0; i < 2; i++) {
      const answer = await postSigned(recording.endpoint, body, KEY, 'delivery-1');
      expect(answer.status).toBe(307);
      expect(answer.body.location).toBe('https://elsewhere.example.com/ingest');
    }
    expect(recording.requests.map((r) => r.body)).toEqual(['{"kind":"run"}', '{"kind":"run"}']);
  });

  it('names a Location that is not a URL as given, and says so when a 3xx has none', async () => {
    recording.answer = () => ({ status: 302, headers: { location: 'http://[broken' } });
    const odd = await postSigned(recording.endpoint, Buffer.from('{}'), KEY, 'delivery-2');
    expect(odd.body.location).toBe('http://[broken');
    recording.answer = () => ({ status: 307 });
    const bare = await postSigned(recording.endpoint, Buffer.from('{}'), KEY, 'delivery-3');
    expect(bare.body).toEqual({
      error: 'redirected',
      message: 'The endpoint answered 307 without a Location; replay-push never follows a redirect: check --endpoint.',
    });
  });

  it('is also how an issue record fares (exit 3)', async () => {
    recording.answer = () => ({ status: 307, headers: { location: 'https://elsewhere.example.com/ingest' } });
    const dir = tempDir('replay-issue-');
    const task = join(dir, 'task.json');
    writeFileSync(task, JSON.stringify(taskJson('redirected-issue')));
    const run = await replayPush([
      'issue',
      task,
      '--host',
      'mac-studio-1',
      '--outbox',
      join(dir, 'outbox'),
      '--endpoint',
      recording.endpoint,
      '--key-file',
      keyFile,
    ]);
    expect(run.code).toBe(3);
    expect(recording.requests).toHaveLength(1);
  });
});
