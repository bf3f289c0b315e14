// A run folder is written by a harness running an agent (docs/contract.md §7): replay-push reads its files only as
// regular files inside it, never through a link, never a FIFO, socket or directory, never beyond a size cap.
// Each hostile folder is refused with exit 2 and a sentence naming the file, with --dry-run as without; nothing
// of it is sent, and the secret a link pointed at appears in no output, outbox file or request.
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { MAX_RUN_FILE_BYTES } from '#runner/run-folder.ts';
import { startRecordingEndpoint, type RecordingEndpoint } from '../helpers/recording-endpoint.ts';
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

const KEY = 'hostile-folders-key-of-mac-studio-1-0f3a9c';
const SECRET = 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY';
let recording: RecordingEndpoint;
let keyFile: string;
let secretFile: string;
const sockets: Server[] = [];

beforeAll(async () => {
  recording = await startRecordingEndpoint();
  keyFile = writeKeyFile(tempDir('replay-key-'), KEY);
  secretFile = join(tempDir('replay-home-'), 'credentials');
  writeFileSync(secretFile, `[default]\n${SECRET}\n`, { mode: 0o600 });
});
afterAll(async () => {
  await recording.stop();
});
beforeEach(() => {
  recording.requests.length = 0;
});
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const flags = () => ['--endpoint', recording.endpoint, '--key-file', keyFile, '--retry-for', '0'];

/** A valid run folder, then one of its files replaced by `hostile`; returns the folder and the refused file. */
function hostileFolder(file: string, hostile: (path: string) => void | Promise<void>) {
  const root = tempDir('replay-runs-');
  const folder = writeRunFolder(root, {
    result: resultJson({ taskId: `hostile-${file.replace('.', '-')}` }),
    patch: SMALL_PATCH,
    summary: 'Changed a to b.',
    task: taskJson(`hostile-${file.replace('.', '-')}`),
  });
  const path = join(folder, file);
  rmSync(path, { force: true });
  return { root, folder, path, ready: Promise.resolve(hostile(path)) };
}

function listenOn(path: string): Promise<void> {
  const server = createServer();
  sockets.push(server);
  return new Promise((resolve) => server.listen(path, resolve));
}

/** Neither the secret nor the host key shows in what the command printed, wrote or sent. */
function expectNothingLeaked(run: CliRun, root: string): void {
  const printed = [...run.out, ...run.err].join('\n');
  const written = filesUnder(join(root, '.replay-outbox'))
    .map((f) => f.text)
    .join('\n');
  const sent = recording.requests.map((r) => r.body).join('\n');
  for (const text of [printed, written, sent]) {
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(KEY);
  }
}

const CASES: { name: string; file: string; reason: RegExp; make: (path: string) => void | Promise<void> }[] = [
  {
    name: 'summary.md linked to a secret file outside the folder',
    file: 'summary.md',
    reason: /^is a symbolic link: replay-push reads only regular files, never through a link\.$/,
    make: (path) => symlinkSync(secretFile, path),
  },
  {
    name: 'candidate.diff linked to the host key',
    file: 'candidate.diff',
    reason: /^is a symbolic link: /,
    make: (path) => symlinkSync(keyFile, path),
  },
  {
    name: 'summary.md hard-linked to the secret file',
    file: 'summary.md',
    reason: /^has \d+ hard links: replay-push reads a file only by its one name\.$/,
    make: (path) => linkSync(secretFile, path),
  },
  {
    name: 'trajectory.jsonl a FIFO with no writer (the read must not hang)',
    file: 'trajectory.jsonl',
    reason: /^is a FIFO, not a regular file: refused\.$/,
    make: (path) => void execFileSync('mkfifo', [path]),
  },
  {
    name: 'task.json a listening socket',
    file: 'task.json',
    reason: /^is a socket or device, not a regular file: refused\.$/,
    make: (path) => listenOn(path),
  },
  {
    name: 'candidate.diff a directory',
    file: 'candidate.diff',
    reason: /^is a directory, not a regular file: refused\.$/,
    make: (path) => mkdirSync(path),
  },
  {
    name: 'summary.md one byte over its cap',
    file: 'summary.md',
    reason: /^is larger than 4 MiB: refused\.$/,
    make: (path) => writeFileSync(path, Buffer.alloc(MAX_RUN_FILE_BYTES['summary.md'] + 1, 'x')),
  },
];

describe('a hostile run folder', () => {
  it.each(CASES)('$name: refused with exit 2 naming the file, nothing sent', async ({ file, reason, make }) => {
    const { root, folder, path, ready } = hostileFolder(file, make);
    await ready;
    const run = await replayPush(['run', folder, ...flags()]);
    expect(run.code).toBe(2);
    const line = run.err.find((l) => l.startsWith(`replay-push: ${path}: `));
    expect(line?.slice(`replay-push: ${path}: `.length)).toMatch(reason);
    expect(run.out).toEqual(['delivered 0, already accepted 0, queued 0, rejected 0']);
    expect(recording.requests).toEqual([]);
    expect(filesUnder(join(root, '.replay-outbox', 'pending'))).toEqual([]);
    expectNothingLeaked(run, root);
  });

  it.each(CASES)('$name: refused the same way by --dry-run, which prints no row', async ({ file, reason, make }) => {
    const { root, folder, path, ready } = hostileFolder(file, make);
    await ready;
    const run = await replayPush(['run', folder, '--dry-run', '--host', 'mac-studio-1']);
    expect(run.code).toBe(2);
    expect(run.err).toHaveLength(1);
    expect(run.err[0]!.slice(`replay-push: ${path}: `.length)).toMatch(reason);
    expect(run.out).toEqual([]);
    expect(existsSync(join(root, '.replay-outbox'))).toBe(false);
    expectNothingLeaked(run, root);
  });
});

describe('a run folder that is itself a link', () => {
  function linkedRun() {
    const elsewhere = tempDir('replay-elsewhere-');
    const target = writeRunFolder(elsewhere, {
      result: resultJson({ taskId: 'linked' }),
      patch: SMALL_PATCH,
      summary: SECRET,
    });
    const root = tempDir('replay-runs-');
    const good = writeRunFolder(root, { result: resultJson({ taskId: 'beside-the-link' }), patch: SMALL_PATCH });
    const link = join(root, 'linked__h2');
    symlinkSync(target, link);
    return { root, link, good };
  }
  const refusal = (link: string) =>
    `replay-push: ${link}: is a symbolic link: a run folder is read where it is, never through a link.`;

  it('is refused by sync with exit 2, naming it, while the folder beside it is delivered', async () => {
    const { root, link } = linkedRun();
    const run = await replayPush(['sync', root, ...flags()]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(refusal(link));
    expect(run.out).toEqual(['delivered 1, already accepted 0, queued 0, rejected 0']);
    expect(recording.requests.map((r) => (JSON.parse(r.body) as { id: string }).id)).toEqual([
      'qwen3_8b__beside-the-link__h2',
    ]);
    expectNothingLeaked(run, root);
  });

  it('is refused by run and by --dry-run with exit 2, naming it', async () => {
    const { root, link } = linkedRun();
    for (const args of [flags(), ['--dry-run', '--host', 'mac-studio-1']]) {
      const run = await replayPush(['run', link, ...args]);
      expect(run.code).toBe(2);
      expect(run.err).toContain(refusal(link));
      expectNothingLeaked(run, root);
    }
    expect(recording.requests).toEqual([]);
  });

  it('is refused by sync --dry-run too, which still prints the good folder', async () => {
    const { root, link, good } = linkedRun();
    const run = await replayPush(['sync', root, '--dry-run', '--json', '--host', 'mac-studio-1']);
    expect(run.code).toBe(2);
    expect(run.err).toEqual([refusal(link)]);
    expect(run.out.map((l) => (JSON.parse(l) as { folder: string }).folder)).toEqual([good]);
    expectNothingLeaked(run, root);
  });
});

describe('an issue record given on the command line', () => {
  it('is refused when it is a link, naming it (exit 2)', async () => {
    const dir = tempDir('replay-issue-');
    const task = join(dir, 'task.json');
    symlinkSync(secretFile, task);
    const run = await replayPush(['issue', task, '--host', 'mac-studio-1', ...flags()]);
    expect(run.code).toBe(2);
    expect(run.err[0]).toBe(
      `replay-push: ${task}: is a symbolic link: replay-push reads only regular files, never through a link.`,
    );
    expect(recording.requests).toEqual([]);
    expectNothingLeaked(run, dir);
  });
});

describe('an issue record given on the command line, by content', () => {
  it('is refused when it is a hard link to a secret, and the secret shows nowhere (exit 2)', async () => {
    const dir = tempDir('replay-issue-');
    const task = join(dir, 'task.json');
    linkSync(secretFile, task);
    const run = await replayPush(['issue', task, '--host', 'mac-studio-1', '--dry-run', ...flags()]);
    expect(run.code).toBe(2);
    expect(run.err[0]).toMatch(/task\.json: has \d+ hard links: replay-push reads a file only by its one name\.$/);
    expectNothingLeaked(run, dir);
    expect(run.err.join('\n')).not.toContain('aws_secret');
  });

  it('says where it stops being JSON, never what it says (exit 2)', async () => {
    const dir = tempDir('replay-issue-');
    const task = join(dir, 'task.json');
    writeFileSync(task, SECRET);
    const run = await replayPush(['issue', task, '--host', 'mac-studio-1', '--dry-run', ...flags()]);
    expect(run.code).toBe(2);
    expect(run.err[0]).toBe(`replay-push: ${task}: is not valid JSON.`);
    writeFileSync(task, `{"taskId": ${SECRET}}`);
    const again = await replayPush(['issue', task, '--host', 'mac-studio-1', '--dry-run', ...flags()]);
    expect(again.err.join('\n')).not.toContain('aws_secret');
  });
});

describe('a run folder file that is not JSON', () => {
  it('is refused naming where it stops being JSON, never quoting it (exit 2)', async () => {
    const root = tempDir('replay-runs-');
    const folder = writeRunFolder(root, { result: resultJson({ taskId: 'json-quote' }), patch: SMALL_PATCH });
    writeFileSync(join(folder, 'result.json'), SECRET);
    writeFileSync(join(folder, 'task.json'), `{"taskId": "json-quote", "repo": "${SECRET}" x}`);
    const run = await replayPush(['run', folder, '--dry-run', ...flags()]);
    expect(run.code).toBe(2);
    expect(run.err[0]).toBe(`replay-push: ${join(folder, 'result.json')}: is not valid JSON.`);
    writeFileSync(join(folder, 'result.json'), JSON.stringify(resultJson({ taskId: 'json-quote' })));
    const task = await replayPush(['run', folder, '--dry-run', ...flags()]);
    expect(task.code).toBe(2);
    expect(task.err[0]).toBe(
      `replay-push: ${join(folder, 'task.json')}: is not valid JSON (at position ${SECRET.length + 36}).`,
    );
    expectNothingLeaked(run, root);
    expect([...run.err, ...task.err].join('\n')).not.toContain('aws_secret');
  });
});

describe('the host key file', () => {
  const oneRun = () => {
    const root = tempDir('replay-runs-');
    return { root, folder: writeRunFolder(root, { result: resultJson({ taskId: 'key-file' }), patch: SMALL_PATCH }) };
  };

  it('is refused when it is a link (even to the right key), and the run stays queued (exit 2)', async () => {
    const { root, folder } = oneRun();
    const linked = join(tempDir('replay-key-'), 'linked.key');
    symlinkSync(keyFile, linked);
    const run = await replayPush(['run', folder, '--endpoint', recording.endpoint, '--key-file', linked]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(
      `replay-push: The key file ${linked} is a symbolic link: replay-push reads only regular files, never through a link.`,
    );
    expect(run.out).toEqual(['delivered 0, already accepted 0, queued 1, rejected 0']);
    expect(recording.requests).toEqual([]);
    expect(run.err.join('\n')).not.toContain(KEY);
    expect(filesUnder(join(root, '.replay-outbox', 'pending'))).toHaveLength(1);
  });

  it('is refused when it is a FIFO, without hanging (exit 2)', async () => {
    const { folder } = oneRun();
    const fifo = join(tempDir('replay-key-'), 'fifo.key');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    const run = await replayPush(['run', folder, '--endpoint', recording.endpoint, '--key-file', fifo]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(`replay-push: The key file ${fifo} is a FIFO, not a regular file: refused.`);
    expect(recording.requests).toEqual([]);
  });
});
