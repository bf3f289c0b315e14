// replay-push's commands against local mode over HTTP (docs/contract.md §7): what a runner host sees for good folders,
// and a clear sentence and the right exit code for every kind of bad input.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PATCH_CUT_MARKER } from '#runner/delivery.ts';
import { MAX_DELIVERY_BYTES } from '#schema/delivery.ts';
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

const KEY = 'cli-test-key-of-mac-studio-1';
let local: TestLocalMode;
let endpoint: string;
let keyFile: string;

beforeAll(async () => {
  local = await startTestLocalMode({ spaces: { S: { senders: ['mac-studio-1'] } } }, { 'mac-studio-1': KEY });
  endpoint = `${local.url}/hooks/S/ingest`;
  keyFile = writeKeyFile(tempDir('replay-key-'), KEY);
});
afterAll(async () => {
  await local.stop();
});

const api = async (path: string) => fetch(`${local.url}/api/spaces/S${path}`);
/** The row once it has landed (a 202 means stored and queued; landing follows within moments). */
const rowOf = (id: string, landed: (row: Record<string, unknown>) => boolean = () => true) =>
  eventually(async () => {
    const response = await api(`/runs/${encodeURIComponent(id)}`);
    const row = response.ok ? ((await response.json()) as Record<string, unknown>) : null;
    return row && landed(row) ? row : null;
  });
const issueOf = (taskId: string, landed: (issue: Record<string, unknown>) => boolean = () => true) =>
  eventually(async () => {
    const { issues } = (await (await api('/issues')).json()) as { issues: Record<string, unknown>[] };
    const issue = issues.find((i) => i.taskId === taskId);
    return issue && landed(issue) ? issue : null;
  });
const flags = () => ['--endpoint', endpoint, '--key-file', keyFile, '--retry-for', '0'];

describe('replay-push run', () => {
  it('delivers a run folder with its issue and hidden-test result, and says so in one line', async () => {
    const root = tempDir('replay-runs-');
    const folder = writeRunFolder(root, {
      result: resultJson({ taskId: 'cli-1' }),
      patch: SMALL_PATCH,
      summary: 'Changed a to b.',
      task: taskJson('cli-1'),
      hiddenTest: { status: 'pass', passed: 3, failed: 0, total: 3, ranAt: '2026-11-20T11:00:00Z' },
    });
    const first = await replayPush(['run', folder, ...flags()]);
    expect(first.err).toEqual(['delivered qwen3_8b__cli-1__h2']);
    expect(first.out).toEqual(['delivered 1, already accepted 0, queued 0, rejected 0']);
    expect(first.code).toBe(0);

    const again = await replayPush(['run', folder, '--json', ...flags()]);
    expect(again.out).toEqual([JSON.stringify({ delivered: 0, alreadyAccepted: 1, queued: 0, rejected: 0 })]);
    expect(again.code).toBe(0);

    const row = await rowOf('qwen3_8b__cli-1__h2');
    expect(row).toMatchObject({
      host: 'mac-studio-1',
      repo: 'acme/widgets',
      patchLinesAdded: 1,
      metricsSource: 'result-only',
      patchTruncated: false,
    });
    expect(await issueOf('cli-1')).toMatchObject({ repo: 'acme/widgets', issueNumber: 42 });
  });

  it('cuts a 3 MiB patch so the body fits, marks the cut and says patchTruncated', async () => {
    const root = tempDir('replay-runs-');
    const lines = Math.ceil((3 * MAX_DELIVERY_BYTES) / 100);
    const folder = writeRunFolder(root, {
      result: resultJson({ taskId: 'cli-big' }),
      patch: `diff --git a/big b/big\n${`+${'p'.repeat(98)}\n`.repeat(lines)}`,
    });
    const result = await replayPush(['run', folder, ...flags()]);
    expect(result.code).toBe(0);
    const row = await rowOf('qwen3_8b__cli-big__h2');
    expect(row).toMatchObject({ patchTruncated: true, patchLinesAdded: lines });
    const stored = await (await api('/runs/qwen3_8b__cli-big__h2/patch')).text();
    expect(stored.endsWith(`\n${PATCH_CUT_MARKER}`)).toBe(true);
    expect(Buffer.byteLength(stored)).toBeLessThan(MAX_DELIVERY_BYTES);
    // Each newline takes two bytes in the JSON body: about 1% of these lines.
    expect(Buffer.byteLength(stored)).toBeGreaterThan(MAX_DELIVERY_BYTES * 0.98);
  });

  it('prints the row and what would be sent with --dry-run, and sends and writes nothing', async () => {
    const root = tempDir('replay-runs-');
    const folder = writeRunFolder(root, {
      result: resultJson({ taskId: 'cli-dry' }),
      patch: SMALL_PATCH,
      task: taskJson('cli-dry'),
    });
    const result = await replayPush(['run', folder, '--dry-run', '--host', 'mac-studio-1']);
    expect(result.code).toBe(0);
    expect(result.out.join('\n')).toContain('"taskId": "cli-dry"');
    expect(result.out.some((l) => /^ {2}would send run qwen3_8b__cli-dry__h2 \(\d+ bytes\)$/.test(l))).toBe(true);
    expect(result.out.some((l) => l.startsWith('  would send issue cli-dry'))).toBe(true);
    expect(existsSync(join(root, '.replay-outbox'))).toBe(false);
    expect((await api('/runs/qwen3_8b__cli-dry__h2')).status).toBe(404);
  });
});

describe('bad input', () => {
  it('refuses a folder without result.json, naming the file (exit 2)', async () => {
    const folder = writeRunFolder(tempDir('replay-runs-'), { result: resultJson({ taskId: 'no-result' }) });
    rmSync(join(folder, 'result.json'));
    const result = await replayPush(['run', folder, ...flags()]);
    expect(result.code).toBe(2);
    expect(result.err[0]).toBe(`replay-push: ${join(folder, 'result.json')}: is missing: every run folder needs one.`);
  });

  it('refuses a result.json without a required field, naming the file and the field (exit 2)', async () => {
    const folder = writeRunFolder(tempDir('replay-runs-'), { result: resultJson({ outcome: undefined }) });
    const result = await replayPush(['run', folder, ...flags()]);
    expect(result.code).toBe(2);
    expect(result.err[0]).toMatch(new RegExp(`^replay-push: ${join(folder, 'result.json')}: outcome: `));
  });

  it('refuses a malformed trajectory line with its number (exit 2), and only warns about a cut-short last line', async () => {
    const event = { type: 'model-call', step: 1, startedAt: '2026-11-20T10:00:00Z', endedAt: '2026-11-20T10:00:05Z' };
    const bad = writeRunFolder(tempDir('replay-runs-'), {
      result: resultJson({ taskId: 'bad-line' }),
      trajectory: [event, '{oops', event],
    });
    const refused = await replayPush(['run', bad, ...flags()]);
    expect(refused.code).toBe(2);
    expect(refused.err[0]).toBe(`replay-push: ${join(bad, 'trajectory.jsonl')}: line 2 is not valid JSON.`);

    const cut = writeRunFolder(tempDir('replay-runs-'), {
      result: resultJson({ taskId: 'cut-line' }),
      trajectory: [event],
    });
    writeFileSync(join(cut, 'trajectory.jsonl'), `${JSON.stringify(event)}\n{"type":"model-call","st`);
    const warned = await replayPush(['run', cut, ...flags()]);
    expect(warned.code).toBe(0);
    expect(warned.err).toContain(
      `replay-push: warning: ${join(cut, 'trajectory.jsonl')}: line 2 is cut short (no newline after it) and was skipped.`,
    );
    expect(await rowOf('qwen3_8b__cut-line__h2')).toMatchObject({ steps: 1, metricsSource: 'trajectory' });
  });

  it('refuses a folder of another host than --host (exit 2) and still delivers the others', async () => {
    const root = tempDir('replay-runs-');
    const other = writeRunFolder(root, { result: resultJson({ taskId: 'other-host', host: 'mac-mini-2' }) });
    writeRunFolder(root, { result: resultJson({ taskId: 'own-host' }) });
    const result = await replayPush(['sync', root, '--host', 'mac-studio-1', ...flags()]);
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      `replay-push: ${join(other, 'result.json')}: names host "mac-mini-2", but this is --host "mac-studio-1": it belongs to another runner.`,
    );
    expect(result.out).toEqual(['delivered 1, already accepted 0, queued 0, rejected 0']);
  });

  it('refuses an empty key file and one others can read, with a sentence, and keeps the run queued', async () => {
    const root = tempDir('replay-runs-');
    const folder = writeRunFolder(root, { result: resultJson({ taskId: 'key-trouble' }) });
    const dir = tempDir('replay-key-');
    const empty = writeKeyFile(dir, '', 'empty.key');
    const emptyRun = await replayPush(['run', folder, '--endpoint', endpoint, '--key-file', empty]);
    expect(emptyRun.code).toBe(2);
    expect(emptyRun.err).toContain(
      `replay-push: The key file ${empty} is empty: it must hold the host's key (see docs/runner.md, "Pairing a Mac").`,
    );
    expect(emptyRun.out).toEqual(['delivered 0, already accepted 0, queued 1, rejected 0']);

    const open = writeKeyFile(dir, KEY, 'open.key');
    chmodSync(open, 0o644);
    const openRun = await replayPush(['run', folder, '--endpoint', endpoint, '--key-file', open]);
    expect(openRun.code).toBe(2);
    expect(openRun.err.join('\n')).toContain(
      `The key file ${open} can be read by other users (mode 644): run \`chmod 600 ${open}\``,
    );
    expect(openRun.err.join('\n')).not.toContain(KEY);
    expect((await api('/runs/qwen3_8b__key-trouble__h2')).status).toBe(404);
  });

  it('sets aside a delivery the endpoint refuses for good (404 unknown space) with the answer, and never queues it again', async () => {
    const root = tempDir('replay-runs-');
    writeRunFolder(root, {
      result: resultJson({ taskId: 'no-space' }),
      hiddenTest: { status: 'pass', ranAt: '2026-11-20T11:00:00Z' },
    });
    const wrong = ['--endpoint', `${local.url}/hooks/NoSuchSpace/ingest`, '--key-file', keyFile, '--retry-for', '30'];
    const first = await replayPush(['sync', root, ...wrong]);
    expect(first.code).toBe(3);
    expect(first.out).toEqual(['delivered 0, already accepted 0, queued 0, rejected 1']);
    expect(first.err[0]).toMatch(/^rejected run qwen3_8b__no-space__h2: 404 unknown-space: /);
    const rejected = readdirSync(join(root, '.replay-outbox', 'rejected'));
    expect(rejected.filter((n) => n.endsWith('.answer.json'))).toHaveLength(2); // the run, and its hidden-test result with it
    const answer = JSON.parse(
      readFileSync(
        join(
          root,
          '.replay-outbox',
          'rejected',
          rejected.find((n) => n.endsWith('.answer.json'))!,
        ),
        'utf8',
      ),
    ) as { answer: { status: number } };
    expect(answer.answer.status).toBe(404);

    const second = await replayPush(['sync', root, ...wrong]);
    expect(second.out).toEqual(['delivered 0, already accepted 0, queued 0, rejected 1']);
    expect(readdirSync(join(root, '.replay-outbox', 'rejected'))).toEqual(rejected);

    const status = await replayPush(['status', root]);
    expect(status.code).toBe(0);
    expect(status.out.join('\n')).toMatch(
      /rejected run qwen3_8b__no-space__h2 \(mac-studio-1\) at .*: 404 unknown-space: /,
    );
  });

  it('answers usage mistakes with exit 2 and the usage', async () => {
    const folder = writeRunFolder(tempDir('replay-runs-'), { result: resultJson({ taskId: 'usage' }) });
    const noEndpoint = await replayPush(['run', folder]);
    expect(noEndpoint.code).toBe(2);
    expect(noEndpoint.err[0]).toBe(
      'replay-push: Where to? Give --endpoint (or REPLAY_ENDPOINT): the ingest URL, …/hooks/{space}/ingest.',
    );
    expect((await replayPush(['launch', folder])).err[0]).toBe('replay-push: Unknown command "launch".');
    expect((await replayPush(['run', folder, '--endpoint', 'http://x/'])).code).toBe(2);
    expect((await replayPush(['issue', 'task.json', '--endpoint', endpoint])).err[0]).toBe(
      'replay-push: Which host sends them? Give --host (or REPLAY_HOST).',
    );
    const noOutbox = await replayPush(['status', join(folder, '..')]);
    expect(noOutbox.code).toBe(2);
    expect(noOutbox.err[0]).toBe(
      `replay-push: There is no outbox at ${join(folder, '..', '.replay-outbox')}: nothing was ever queued there (or give --outbox).`,
    );
  });
});

describe('issue, hidden-test and status', () => {
  it('delivers issue records and a hidden-test result on their own, taking settings from the environment', async () => {
    const root = tempDir('replay-runs-');
    const folder = writeRunFolder(root, { result: resultJson({ taskId: 'later-tests' }), patch: SMALL_PATCH });
    const env = {
      REPLAY_ENDPOINT: endpoint,
      REPLAY_HOST: 'mac-studio-1',
      REPLAY_OUTBOX: join(root, 'outbox'),
      'Hosting__ModuleReportSecret__mac-studio-1': KEY,
    };
    expect((await replayPush(['run', folder], env)).code).toBe(0);

    const taskFile = join(root, 'task.json');
    writeFileSync(taskFile, JSON.stringify({ ...taskJson('later-tests', { wave: 3 }), title: 'never sent' }));
    const issue = await replayPush(['issue', taskFile], env);
    expect(issue.code).toBe(0);
    const stored = await issueOf('later-tests', (i) => i.wave === 3);
    expect(stored).not.toHaveProperty('title');

    writeFileSync(
      join(folder, 'hidden-tests.json'),
      JSON.stringify({ status: 'fail', passed: 1, failed: 1, total: 2, ranAt: '2026-11-20T12:00:00Z' }),
    );
    expect((await replayPush(['hidden-test', folder], env)).code).toBe(0);
    const row = await rowOf('qwen3_8b__later-tests__h2', (r) => r.hiddenTestResult !== null);
    expect(row.hiddenTestResult).toMatchObject({ status: 'fail', failed: 1 });

    const status = await replayPush(['status', '--json'], env);
    const body = JSON.parse(status.out[0]!) as {
      queued: number;
      rejected: number;
      accepted: number;
      hosts: { host: string; lastAcceptedAt: string | null }[];
    };
    expect(body).toMatchObject({ queued: 0, rejected: 0, accepted: 3 });
    expect(body.hosts[0]!.host).toBe('mac-studio-1');
    expect(body.hosts[0]!.lastAcceptedAt).not.toBeNull();
  });
});
