// `replay-push import` mapping (docs/runner.md, "Importing a harness's outputs"): each format's real public files
// (test/fixtures/import/, data/README.md) become run folders whose rows hold what the source records and null for
// what it does not; hostile inputs are named and skipped.
import { copyFileSync, cpSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { fixSize, tierOf } from '#runner/fix-size.ts';
import { importToFolders } from '#runner/import/import-command.ts';
import { readJsonLines } from '#runner/import/json-lines.ts';
import { MAX_ZIP_ENTRY_BYTES, zipEntries } from '#runner/import/zip-entries.ts';
import { prepareFolders } from '#runner/sync.ts';
import { tempDir } from '../../../helpers/run-folders.ts';
import { zipArchive, type ZipSpec } from '../../../helpers/zip-writer.ts';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/import');
const at = (...parts: string[]) => join(FIXTURES, ...parts);
const mtime = (path: string) => statSync(path).mtime.toISOString();

async function runsOf(format: string, paths: string[], options: Parameters<typeof importToFolders>[3] = {}) {
  const root = tempDir('replay-import-');
  const imported = await importToFolders(format, paths, root, options);
  const prepared = await prepareFolders(imported.folders, { runsRoot: root, host: 'importer' });
  expect(prepared.invalid).toEqual([]);
  const byTask = new Map(prepared.runs.map((r) => [r.row.taskId, r]));
  return { imported, runs: prepared.runs, byTask, root };
}

const UNMEASURED = ['steps', 'promptTokens', 'completionTokens', 'costUsd', 'wallSeconds', 'bashCalls'] as const;

describe('swe-bench: predictions and the evaluation logs', () => {
  const preds = at('swe-bench/preds.json');
  const options = { harnessVersion: 'mini-swe-agent@1.15.0' };

  it('maps each prediction with its report: pass and fail with the named tests, and nothing the harness lacks', async () => {
    const { runs, byTask } = await runsOf('swe-bench', [preds, at('swe-bench/logs')], options);
    expect(runs).toHaveLength(3);
    const resolved = byTask.get('astropy__astropy-12907')!;
    expect(resolved.row).toMatchObject({
      model: 'google/gemini-3-pro-preview',
      harnessVersion: 'mini-swe-agent@1.15.0',
      outcome: 'finished',
      metricsSource: 'swe-bench/1',
      repo: 'astropy/astropy',
      issueNumber: 12907,
      finishedAt: mtime(preds),
      startedAt: mtime(preds),
    });
    for (const field of UNMEASURED) expect(resolved.row[field]).toBeNull();
    const predictions = JSON.parse(readFileSync(preds, 'utf8')) as Record<string, { model_patch: string }>;
    expect(resolved.patch).toBe(predictions['astropy__astropy-12907']!.model_patch);
    expect(resolved.hiddenTest).toMatchObject({ status: 'pass', passed: 15, failed: 0, total: 15 });
    expect(resolved.hiddenTest!.passedTests).toContain('astropy/modeling/tests/test_separable.py::test_cdot');
    expect(resolved.hiddenTest!.ranAt).toBe(mtime(at('swe-bench/logs/astropy__astropy-12907/report.json')));

    const failed = byTask.get('astropy__astropy-13033')!.hiddenTest!;
    expect(failed.status).toBe('fail');
    expect(failed.failedTests).toEqual([
      'astropy/timeseries/tests/test_sampled.py::test_required_columns',
      'astropy/timeseries/tests/test_sampled.py::test_empty_initialization_invalid',
    ]);
    expect(byTask.get('astropy__astropy-12907')!.task).toMatchObject({
      repo: 'astropy/astropy',
      tier: null,
      baseSha: null,
    });
  });

  it('takes the base commit, fix size and tier from --dataset, measured from the gold patch as the demo does', async () => {
    const dir = tempDir('replay-dataset-');
    const lite = readFileSync(join(import.meta.dirname, '../../../../data/swe-bench-lite/tasks.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(
        (l) =>
          JSON.parse(l) as {
            instanceId: string;
            repo: string;
            baseCommit: string;
            goldPatch: string;
            testPatch: string;
          },
      )
      .find((t) => t.instanceId === 'astropy__astropy-12907')!;
    const dataset = join(dir, 'lite.jsonl');
    // SWE-bench's own field names, and issue text the importer must not take.
    const row = {
      instance_id: lite.instanceId,
      repo: lite.repo,
      base_commit: lite.baseCommit,
      patch: lite.goldPatch,
      test_patch: lite.testPatch,
      problem_statement: 'issue text that is never read',
    };
    writeFileSync(dataset, `${JSON.stringify(row)}\nnot json\n`);
    const { byTask, imported } = await runsOf('swe-bench', [preds, at('swe-bench/logs')], { ...options, dataset });
    const size = fixSize(lite.goldPatch + lite.testPatch);
    expect(byTask.get('astropy__astropy-12907')!.task).toMatchObject({
      baseSha: lite.baseCommit,
      tier: tierOf(size.codeLinesChanged),
      codeLinesChanged: size.codeLinesChanged,
      fixHasTests: true,
    });
    expect(JSON.stringify(byTask.get('astropy__astropy-12907')!.task)).not.toContain('never read');
    expect(imported.warnings).toEqual([`${dataset}:2 is not valid JSON: skipped`]);
  });

  it('reads an infrastructure failure and a patch that did not apply as errors, never as fails', async () => {
    const dir = tempDir('replay-infra-');
    const logs = join(dir, 'logs');
    cpSync(at('swe-bench/logs'), logs, { recursive: true });
    const report = (id: string) => join(logs, id, 'report.json');
    const entry = JSON.parse(readFileSync(report('astropy__astropy-13033'), 'utf8')) as Record<string, unknown>;
    writeFileSync(
      report('astropy__astropy-13033'),
      JSON.stringify({ 'astropy__astropy-13033': { ...entry, infra_failure: true, infra_failure_reason: 'oom' } }),
    );
    const other = JSON.parse(readFileSync(report('django__django-16255'), 'utf8')) as Record<string, unknown>;
    writeFileSync(report('django__django-16255'), JSON.stringify({ ...other, patch_successfully_applied: false }));
    const { byTask } = await runsOf('swe-bench', [preds, logs], options);
    expect(byTask.get('astropy__astropy-13033')!.hiddenTest!.status).toBe('error');
    expect(byTask.get('django__django-16255')!.hiddenTest!.status).toBe('error');
    expect(byTask.get('astropy__astropy-12907')!.hiddenTest!.status).toBe('pass');
  });

  it('lists a run the source cannot name with the field it lacks, and a string ingest refuses, and skips them', async () => {
    const dir = tempDir('replay-bad-preds-');
    const file = join(dir, 'all_preds.jsonl');
    const predictions = JSON.parse(readFileSync(at('swe-bench/preds.json'), 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    const prediction = predictions['astropy__astropy-12907']!;
    // SWE-agent's real predictions name the model "gpt4__swe-bench-dev-…": "__" could make its run id another's.
    const sweAgentLine = readFileSync(at('swe-bench/all_preds.jsonl'), 'utf8').trim();
    writeFileSync(
      file,
      [
        JSON.stringify(prediction),
        JSON.stringify({ ...prediction, model_name_or_path: 'gpt4\u202e' }),
        JSON.stringify({ ...prediction, instance_id: 'a/b' }),
        '{"instance_id": ',
        sweAgentLine,
      ].join('\n'),
    );
    const root = tempDir('replay-import-');
    const imported = await importToFolders('swe-bench', [file], root, { harnessVersion: 'swe-agent-0.4' });
    expect(imported.folders).toHaveLength(1);
    expect(imported.skipped.map((s) => [s.source, s.field])).toEqual([
      [`${file}:2`, 'model'],
      [`${file}:3`, 'taskId'],
      [`${file}:4`, '(line)'],
      [`${file}:5`, 'model'],
    ]);
    const without = await importToFolders('swe-bench', [at('swe-bench/all_preds.jsonl')], tempDir('replay-'), {});
    expect(without.skipped).toEqual([
      expect.objectContaining({ field: 'harnessVersion', reason: expect.stringContaining('--harness-version') }),
    ]);
  });
});

describe('openhands: output.jsonl', () => {
  const output = at('openhands/output.jsonl');

  it('maps model, OpenHands commit, times, tokens, model calls and tool use; cost stays null without per-call costs', async () => {
    const { byTask } = await runsOf('openhands', [output]);
    const done = byTask.get('ponylang__ponyc-4595')!;
    expect(done.row).toMatchObject({
      model: 'openai/openrouter-llama-4-maverick',
      harnessVersion: 'openhands@b5338c69d666',
      startedAt: '2025-04-30T16:32:54.707Z',
      finishedAt: '2025-04-30T16:34:22.948Z',
      wallSeconds: 88.241,
      steps: 23,
      promptTokens: 565158,
      completionTokens: 2558,
      maxPromptTokensPerCall: 33459,
      costUsd: null,
      bashCalls: 13,
      readCalls: 6,
      editCalls: 2,
      writeCalls: 0,
      outcome: 'finished',
      metricsSource: 'openhands/1',
      repo: 'ponylang/ponyc',
      issueNumber: 4595,
    });
    expect(done.patch?.startsWith('diff --git a/src/libponyc/ast/parser.c')).toBe(true);
    expect(done.task).toMatchObject({ baseSha: expect.stringMatching(/^[0-9a-f]{40}$/), tier: null });
    expect(done.hiddenTest).toBeNull();
    // Stopped at its 50 iterations: the budget, not a model error.
    expect(byTask.get('ponylang__ponyc-4588')!.row.outcome).toBe('budget');
  });

  it('takes eval_outputs/<instance>/report.json beside the output as the hidden-test result', async () => {
    const dir = tempDir('replay-openhands-');
    copyFileSync(output, join(dir, 'output.jsonl'));
    mkdirSync(join(dir, 'eval_outputs', 'ponylang__ponyc-4595'), { recursive: true });
    const report = {
      'ponylang__ponyc-4595': {
        patch_is_None: false,
        patch_exists: true,
        patch_successfully_applied: true,
        resolved: false,
        tests_status: {
          FAIL_TO_PASS: { success: [], failure: ['match-single-tuple'] },
          PASS_TO_PASS: { success: ['a'], failure: [] },
        },
      },
    };
    writeFileSync(join(dir, 'eval_outputs', 'ponylang__ponyc-4595', 'report.json'), JSON.stringify(report));
    const { byTask } = await runsOf('auto', [dir]);
    expect(byTask.get('ponylang__ponyc-4595')!.hiddenTest).toMatchObject({
      status: 'fail',
      failedTests: ['match-single-tuple'],
      passedTests: ['a'],
    });
  });

  it('names a malformed line and a 50 MB line by file:line, skips them and imports the rest', async () => {
    const dir = tempDir('replay-openhands-');
    const file = join(dir, 'output.jsonl');
    const [first, second] = readFileSync(output, 'utf8').trim().split('\n');
    const huge = `{"instance_id": "x__y-1", "history": "${'a'.repeat(50 * 1024 * 1024)}"}`;
    writeFileSync(file, `${first}\n${huge}\n[1, 2]\n{ not json\n${second}\n`);
    const { imported, runs } = await runsOf('openhands', [file]);
    expect(runs.map((r) => r.row.taskId).sort()).toEqual(['ponylang__ponyc-4588', 'ponylang__ponyc-4595']);
    expect(imported.skipped.map((s) => `${s.source} ${s.reason}`)).toEqual([
      `${file}:2 is longer than 32 MiB: skipped`,
      `${file}:3 is not a JSON object: skipped`,
      `${file}:4 is not valid JSON: skipped`,
    ]);
  });
});

describe('readJsonLines', () => {
  it('drops a line over the cap as it streams, without losing the lines around it', async () => {
    const file = join(tempDir('replay-lines-'), 'x.jsonl');
    writeFileSync(file, `{"a":1}\n{"b":"${'x'.repeat(100)}"}\n\n{"c":3}`);
    const lines = [];
    for await (const line of readJsonLines(file, 64)) lines.push(line);
    expect(lines).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 2, problem: 'is longer than 0.00006103515625 MiB: skipped' },
      { line: 4, value: { c: 3 } },
    ]);
  });
});

describe('swe-agent: .traj files', () => {
  it('maps model_stats, the actions as tool calls, the submission and the model of replay_config', async () => {
    const traj = at('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj');
    const { runs } = await runsOf('swe-agent', [at('swe-agent')], { harnessVersion: 'swe-agent-test-data' });
    expect(runs).toHaveLength(1);
    expect(runs[0]!.row).toMatchObject({
      taskId: '6e44b9__sweagenttestrepo-1c2844',
      model: 'gpt-4o',
      steps: 5,
      promptTokens: 7141,
      completionTokens: 243,
      costUsd: 0.019520000000000006,
      outcome: 'finished',
      finishedAt: mtime(traj),
      wallSeconds: null,
      metricsSource: 'swe-agent/1',
    });
    expect(runs[0]!.row.bashCalls! + runs[0]!.row.readCalls! + runs[0]!.row.editCalls!).toBe(4);
    expect(runs[0]!.patch?.startsWith('diff --git a/tests/missing_colon.py')).toBe(true);
    // Not a SWE-bench id: no issue record is made up for it.
    expect(runs[0]!.task).toBeNull();
  });
});

describe('mini-swe-agent: .traj.json files', () => {
  it('maps cost, calls, usage summed over every answer, the answers’ times, and each action as a bash call', async () => {
    const { runs } = await runsOf('auto', [at('mini-swe-agent')]);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.row).toMatchObject({
      taskId: 'django__django-16255',
      model: 'google/gemini-3-pro-preview',
      harnessVersion: 'mini-swe-agent@1.15.0',
      steps: 17,
      promptTokens: 61068,
      completionTokens: 2317,
      costUsd: 0.08934840000000001,
      bashCalls: 17,
      startedAt: '2025-11-18T23:52:40.000Z',
      finishedAt: '2025-11-18T23:53:48.000Z',
      wallSeconds: null,
      metricsSource: 'mini-swe-agent/1',
      repo: 'django/django',
      issueNumber: 16255,
    });
  });
});

describe('inspect: .eval logs', () => {
  const log = at('inspect/log_read_sample.eval');

  it('maps each sample: the eval’s model and Inspect version, its usage, its own time, its score', async () => {
    const { runs } = await runsOf('inspect', [at('inspect')]);
    expect(runs).toHaveLength(11);
    const sample = runs.find((r) => r.row.model === 'ollama/gemma3')!;
    expect(sample.row).toMatchObject({
      taskId: '1',
      harnessVersion: expect.stringMatching(/^inspect@0\./),
      promptTokens: 66,
      completionTokens: 3,
      costUsd: null,
      steps: 1,
      bashCalls: 0,
      finishedAt: '2025-07-05T13:59:49.000Z',
      wallSeconds: null,
      outcome: 'finished',
      metricsSource: 'inspect/2',
    });
    expect(sample.hiddenTest).toMatchObject({ status: 'pass', details: 'Inspect scorer "match": C' });
    expect(sample.task).toBeNull();
    // A log whose samples have no score: no hidden-test result is made up.
    expect(runs.filter((r) => r.row.model === 'openai/gpt-4o-mini' && r.hiddenTest)).toEqual([]);
  });

  async function logWith(extra: ZipSpec[]): Promise<string> {
    const dir = tempDir('replay-inspect-');
    const entries: ZipSpec[] = [];
    for await (const entry of zipEntries(log, () => true)) entries.push({ name: entry.name, data: await entry.read() });
    const file = join(dir, 'hostile.eval');
    writeFileSync(file, zipArchive([...entries, ...extra]));
    return file;
  }

  it('refuses a sample that inflates past the cap, declared or not, and imports the others', async () => {
    const bomb = Buffer.alloc(MAX_ZIP_ENTRY_BYTES + 1024 * 1024);
    const file = await logWith([
      { name: 'samples/2_epoch_1.json', data: bomb },
      { name: 'samples/3_epoch_1.json', data: bomb, declaredSize: 1000 },
    ]);
    const { runs, imported } = await runsOf('inspect', [file]);
    expect(runs.map((r) => r.row.taskId)).toEqual(['1']);
    expect(imported.skipped.map((s) => [s.source, s.reason.replace(/\d+/g, 'N')])).toEqual([
      [`${file}#samples/2_epoch_1.json`, 'entry samples/N_epoch_N.json is N bytes, over N: refused.'],
      [`${file}#samples/3_epoch_1.json`, expect.stringMatching(/^entry samples\/N_epoch_N.json cannot be read \(/)],
    ]);
  });

  it('refuses a log with a path in an entry name, importing nothing from it', async () => {
    const file = await logWith([{ name: '../../outside.json', data: Buffer.from('{}') }]);
    const root = tempDir('replay-import-');
    const imported = await importToFolders('inspect', [file], root, {});
    expect(imported.folders).toEqual([]);
    expect(imported.skipped).toEqual([
      { source: file, field: '(file)', reason: expect.stringContaining('invalid relative path') },
    ]);
  });
});
