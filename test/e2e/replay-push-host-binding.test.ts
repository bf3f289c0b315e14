// The host named in a run folder never picks the key that signs it (docs/contract.md §7): when keys are looked up by
// host name (the environment, REPLAY_KEYS_DIR), replay-push needs --host or REPLAY_HOST, signs as that host only,
// and refuses a result.json naming another host with exit 2; another host's queued deliveries are not signed.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { keyEnvName } from '#shared/key-names.ts';
import { startRecordingEndpoint, type RecordingEndpoint } from '../helpers/recording-endpoint.ts';
import { replayPush, resultJson, SMALL_PATCH, tempDir, writeKeyFile, writeRunFolder } from '../helpers/run-folders.ts';

let recording: RecordingEndpoint;
let keysDir: string;

beforeAll(async () => {
  recording = await startRecordingEndpoint();
  keysDir = tempDir('replay-keys-');
  for (const host of ['mac-a', 'mac-b'])
    writeKeyFile(keysDir, `key-of-${host}-0123456789abcdef0123456789`, keyEnvName('Hosting:ModuleReportSecret', host));
});
afterAll(async () => {
  await recording.stop();
});
beforeEach(() => {
  recording.requests.length = 0;
});

const env = () => ({ REPLAY_ENDPOINT: recording.endpoint, REPLAY_KEYS_DIR: keysDir, REPLAY_RETRY_FOR: '0' });

describe('keys looked up by host name', () => {
  it('need --host or REPLAY_HOST: a result.json naming a paired host does not pick its key (exit 2)', async () => {
    const root = tempDir('replay-runs-');
    writeRunFolder(root, { result: resultJson({ host: 'mac-b' }), patch: SMALL_PATCH });
    const run = await replayPush(['sync', root], env());
    expect(run.code).toBe(2);
    expect(run.err[0]).toBe(
      'replay-push: Which host signs? Without --key-file the key comes from the environment or ' +
        'REPLAY_KEYS_DIR, so give --host (or REPLAY_HOST): the host a result.json names never picks the key.',
    );
    expect(recording.requests).toEqual([]);
  });

  it('refuse a result.json naming another host than REPLAY_HOST (exit 2), and sign as that host', async () => {
    const root = tempDir('replay-runs-');
    const other = writeRunFolder(root, { result: resultJson({ host: 'mac-b', taskId: 'other' }), patch: SMALL_PATCH });
    writeRunFolder(root, { result: resultJson({ host: 'mac-a', taskId: 'mine' }), patch: SMALL_PATCH });
    const run = await replayPush(['sync', root], { ...env(), REPLAY_HOST: 'mac-a' });
    expect(run.code).toBe(2);
    expect(run.err).toContain(
      `replay-push: ${join(other, 'result.json')}: names host "mac-b", but this is --host "mac-a": it belongs to another runner.`,
    );
    expect(recording.requests.map((r) => JSON.parse(r.body) as { host: string }).map((b) => b.host)).toEqual(['mac-a']);
  });

  it('sign no queued delivery of another host: it waits, said once (exit 1)', async () => {
    const root = tempDir('replay-runs-');
    const folder = writeRunFolder(root, {
      result: resultJson({ host: 'mac-b', taskId: 'queued-b' }),
      patch: SMALL_PATCH,
    });
    recording.answer = () => ({ status: 503 });
    expect((await replayPush(['sync', root], { ...env(), REPLAY_HOST: 'mac-b' })).code).toBe(1);
    recording.answer = () => undefined;
    recording.requests.length = 0;
    rmSync(folder, { recursive: true });
    const run = await replayPush(['sync', root], { ...env(), REPLAY_HOST: 'mac-a' });
    expect(recording.requests).toEqual([]);
    expect(run.code).toBe(1);
    expect(run.err).toEqual([
      `replay-push: warning: 1 deliveries of host "mac-b" wait in ${join(root, '.replay-outbox')}: this replay-push signs as "mac-a" only.`,
    ]);
    expect(run.out).toEqual(['delivered 0, already accepted 0, queued 1, rejected 0']);
  });
});
