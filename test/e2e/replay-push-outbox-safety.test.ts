// What is in the outbox gets signed (docs/contract.md §7), so replay-push guards it like the key: the folder must be
// a real directory of this user's that nobody else can write, and each of its files is read inside it, never through
// a link, never a FIFO, and a queued delivery must be one replay-push could have queued. A planted or linked file is
// refused with exit 2 and a sentence naming it: nothing is sent, and no content of it is printed.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startRecordingEndpoint, type RecordingEndpoint } from '../helpers/recording-endpoint.ts';
import { replayPush, SMALL_PATCH, tempDir, writeKeyFile, writeRunFolder, type CliRun } from '../helpers/run-folders.ts';

const KEY = 'outbox-safety-key-of-mac-studio-1-5b21e0c7';
const SECRET = 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY';
let recording: RecordingEndpoint;
let keyFile: string;
let secretFile: string;

beforeAll(async () => {
  recording = await startRecordingEndpoint();
  keyFile = writeKeyFile(tempDir('replay-key-'), KEY);
  secretFile = join(tempDir('replay-home-'), 'credentials');
  writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
});
afterAll(async () => {
  await recording.stop();
});
beforeEach(() => {
  recording.requests.length = 0;
});

const flags = ['--endpoint', () => recording.endpoint, '--key-file', () => keyFile, '--retry-for', '0'];
const args = () => flags.map((f) => (typeof f === 'function' ? f() : f));
const PLANTED = '00000000000000-1-00000000-6f1c2a34-0000-4000-8000-000000000000.json';

/** A runs root with one good run folder and its outbox, made ready for something to be planted in it. */
function runsRoot(): { root: string; outbox: string } {
  const root = tempDir('replay-runs-');
  writeRunFolder(root, { patch: SMALL_PATCH });
  const outbox = join(root, '.replay-outbox');
  mkdirSync(join(outbox, 'pending'), { recursive: true, mode: 0o700 });
  return { root, outbox };
}

function expectRefused(run: CliRun, named: string): void {
  expect(run.code).toBe(2);
  const printed = [...run.out, ...run.err].join('\n');
  expect(printed).toContain(named);
  expect(printed).not.toContain('aws_secret');
  expect(printed).not.toContain(KEY);
  expect(recording.requests).toEqual([]);
}

const head = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    deliveryId: '6f1c2a34-0000-4000-8000-000000000000',
    kind: 'run',
    host: 'mac-studio-1',
    id: 'planted',
    contentKey: 'run planted',
    queuedAt: '2026-11-20T10:00:00.000Z',
    ...overrides,
  });

describe('a file planted in the outbox', () => {
  it('is refused when a queued delivery is a link to a secret, naming it (exit 2)', async () => {
    const { root, outbox } = runsRoot();
    symlinkSync(secretFile, join(outbox, 'pending', PLANTED));
    expectRefused(await replayPush(['sync', root, ...args()]), join(outbox, 'pending', PLANTED));
  });

  it('is refused when a queued delivery is a FIFO, without hanging (exit 2)', async () => {
    const { root, outbox } = runsRoot();
    execFileSync('mkfifo', [join(outbox, 'pending', PLANTED)]);
    const run = await replayPush(['sync', root, ...args()]);
    expectRefused(run, join(outbox, 'pending', PLANTED));
    expect(run.err.join('\n')).toContain('FIFO');
  });

  it('is refused when its body is not the delivery its head line names: nothing of it is signed (exit 2)', async () => {
    const { root, outbox } = runsRoot();
    writeFileSync(join(outbox, 'pending', PLANTED), `${head()}\n${SECRET}\n`);
    expectRefused(await replayPush(['sync', root, ...args()]), join(outbox, 'pending', PLANTED));
  });

  it('is refused when its body is a delivery of another host than its head line names (exit 2)', async () => {
    const { root, outbox } = runsRoot();
    const issue = { taskId: 't-1', repo: 'acme/widgets', issueNumber: 1, tier: 'easy', wave: 1 };
    const body = JSON.stringify({
      kind: 'issue',
      host: 'mac-other',
      sentAt: '2026-11-29T12:00:00.000Z',
      issue: { ...issue, baseSha: 'a'.repeat(40), mergeSha: 'b'.repeat(40) },
    });
    writeFileSync(join(outbox, 'pending', PLANTED), `${head({ kind: 'issue' })}\n${body}`);
    const run = await replayPush(['sync', root, ...args()]);
    expectRefused(run, join(outbox, 'pending', PLANTED));
    expect(run.err.join('\n')).toContain('not the issue of "mac-studio-1" its head line names');
  });

  it('is refused when state.json is a link to a secret, and its content shows nowhere (exit 2)', async () => {
    const { root, outbox } = runsRoot();
    symlinkSync(secretFile, join(outbox, 'state.json'));
    expectRefused(await replayPush(['sync', root, ...args()]), join(outbox, 'state.json'));
  });

  it('says where state.json stops being JSON, never what it says (exit 2)', async () => {
    const { root, outbox } = runsRoot();
    writeFileSync(join(outbox, 'state.json'), `{"mac-studio-1": ${SECRET}}`);
    const run = await replayPush(['status', root]);
    expectRefused(run, `${join(outbox, 'state.json')} is not valid JSON`);
    expect(run.err.join('\n')).not.toContain('wJalr');
  });
});

describe('the outbox folder', () => {
  it('is created readable and writable by its owner only', async () => {
    const root = tempDir('replay-runs-');
    writeRunFolder(root, { patch: SMALL_PATCH });
    expect((await replayPush(['sync', root, ...args()])).code).toBe(0);
    expect(statSync(join(root, '.replay-outbox')).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, '.replay-outbox', 'pending')).mode & 0o777).toBe(0o700);
  });

  it('is refused when it is a link, naming it (exit 2)', async () => {
    const root = tempDir('replay-runs-');
    writeRunFolder(root, { patch: SMALL_PATCH });
    const elsewhere = tempDir('replay-elsewhere-');
    chmodSync(elsewhere, 0o700);
    symlinkSync(elsewhere, join(root, '.replay-outbox'));
    const run = await replayPush(['sync', root, ...args()]);
    expectRefused(run, `The outbox folder ${join(root, '.replay-outbox')} is a symbolic link`);
  });

  it('is refused when others can write it, saying how to fix it (exit 2)', async () => {
    const { root, outbox } = runsRoot();
    chmodSync(outbox, 0o777);
    const run = await replayPush(['sync', root, ...args()]);
    expectRefused(run, `can be written by other users (mode 777): run \`chmod 700 ${outbox}\``);
  });

  it('is refused when its pending folder is writable by others (exit 2)', async () => {
    const { root, outbox } = runsRoot();
    chmodSync(join(outbox, 'pending'), 0o773);
    expectRefused(await replayPush(['sync', root, ...args()]), `${join(outbox, 'pending')} can be written`);
  });

  it('is refused when it belongs to another user (exit 2)', async () => {
    const { root, outbox } = runsRoot();
    chownSync(outbox, 65534, 65534);
    expectRefused(await replayPush(['sync', root, ...args()]), `${outbox} belongs to another user (uid 65534)`);
  });
});
