// `replay-push import harbor` (docs/runner.md §7, "harbor"): Terminal-Bench run and trial folders (real ones from
// the public leaderboard, test/fixtures/import/terminal-bench/, data/README.md) and Harbor trial folders become
// run folders, a task's repeated trials numbered as samples; hostile files are named and skipped.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { importToFolders } from '#runner/import/import-command.ts';
import { buildRunDelivery } from '#runner/delivery.ts';
import { prepareFolders } from '#runner/sync.ts';
import { tempDir } from '../../../helpers/run-folders.ts';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/import/terminal-bench');
const ORCHESTRATOR_RUN = join(FIXTURES, '2025-09-06__18-59-06');
const DROID_RUNS = [join(FIXTURES, 'tb_rc2_g5_1'), join(FIXTURES, 'tb_rc2_g5_2')];

async function runsOf(format: string, paths: string[], options: Parameters<typeof importToFolders>[3] = {}) {
  const root = tempDir('replay-import-');
  const imported = await importToFolders(format, paths, root, options);
  const prepared = await prepareFolders(imported.folders, { runsRoot: root, host: 'importer' });
  expect(prepared.invalid).toEqual([]);
  const runs = prepared.runs.sort((a, b) => a.row.sample - b.row.sample);
  return { imported, runs, root };
}

describe('harbor: Terminal-Bench trial folders', () => {
  it('numbers a run’s five trials of a task as samples 1–5 by trial number, with the per-test results', async () => {
    const { runs, imported } = await runsOf('harbor', [ORCHESTRATOR_RUN], { model: 'claude-opus-4-1' });
    expect(imported.skipped).toEqual([]);
    expect(runs.map((r) => [r.id, r.row.sample])).toEqual([
      ['claude-opus-4-1__create-bucket__LeadArchitectAgent', 1],
      ['claude-opus-4-1__create-bucket__LeadArchitectAgent__s2', 2],
      ['claude-opus-4-1__create-bucket__LeadArchitectAgent__s3', 3],
      ['claude-opus-4-1__create-bucket__LeadArchitectAgent__s4', 4],
      ['claude-opus-4-1__create-bucket__LeadArchitectAgent__s5', 5],
    ]);
    // The run records no per-trial times: each trial's time is the run's end.
    expect(runs[0]!.row).toMatchObject({
      model: 'claude-opus-4-1',
      harnessVersion: 'LeadArchitectAgent',
      promptTokens: 31877,
      completionTokens: 5015,
      costUsd: null,
      steps: null,
      wallSeconds: null,
      // No time: no rate.
      outputTokensPerMinute: null,
      startedAt: '2025-09-06T21:22:51.314Z',
      finishedAt: '2025-09-06T21:22:51.314Z',
      outcome: 'finished',
      metricsSource: 'terminal-bench/1',
    });
    expect(runs[2]!.hiddenTest).toMatchObject({
      status: 'pass',
      passed: 2,
      failed: 0,
      passedTests: ['test_bucket_exists', 'test_bucket_public_access'],
    });
    // Trial 5 ran out of time and failed both tests; it recorded no tokens.
    expect(runs[4]!.row).toMatchObject({ outcome: 'budget', promptTokens: null, completionTokens: null });
    expect(runs[4]!.hiddenTest).toMatchObject({
      status: 'fail',
      failedTests: ['test_bucket_exists', 'test_bucket_public_access - AssertionError: Bucket is not public'],
    });
    expect(runs.map((r) => r.hiddenTest!.status)).toEqual(['fail', 'fail', 'pass', 'pass', 'fail']);
    // A trial records no diff: the patch is not recorded (null, so never judged), not an empty one, and its counts
    // are unknown rather than zero.
    expect(runs.map((r) => r.patch)).toEqual([null, null, null, null, null]);
    expect(runs[0]!.row).toMatchObject({ patchFilesChanged: null, patchLinesAdded: null, patchLinesRemoved: null });
    expect(JSON.parse(buildRunDelivery(runs[0]!).body)).toMatchObject({ patch: null, patchTruncated: false });
    // Not a SWE-bench instance id: no issue record.
    expect(runs[0]!.task).toBeNull();
  });

  it('numbers one trial of each of several runs in the order the runs started; auto finds them', async () => {
    const { runs } = await runsOf('auto', [...DROID_RUNS].reverse(), { model: 'gpt-5' });
    expect(runs.map((r) => [r.id, r.row.startedAt])).toEqual([
      ['gpt-5__jupyter-notebook-server__Factory-Droid', '2025-09-24T02:26:52.269Z'],
      ['gpt-5__jupyter-notebook-server__Factory-Droid__s2', '2025-09-24T05:26:33.598Z'],
    ]);
    // Its own times: the agent's span is the wall time. Droid reports no usage (written 0 and 0): null.
    expect(runs[0]!.row).toMatchObject({
      finishedAt: '2025-09-24T02:32:26.130Z',
      wallSeconds: 273.627,
      promptTokens: null,
      completionTokens: null,
    });
    // The tests timed out, leaving nothing to parse: Terminal-Bench counts it unresolved, and says why.
    expect(runs[0]!.hiddenTest).toEqual({
      status: 'fail',
      ranAt: '2025-09-24T02:32:26.086Z',
      details: 'No test result could be parsed (failure_mode test_timeout).',
    });
    expect(runs[1]!.hiddenTest).toMatchObject({ status: 'pass', passed: 4, total: 4 });
  });

  it('reads a run’s own results.json list once, and a trial reached twice is one run', async () => {
    const dir = tempDir('replay-tb-');
    const run = join(dir, 'run');
    cpSync(ORCHESTRATOR_RUN, run, { recursive: true });
    const trials = [1, 2, 3, 4, 5].map((k) =>
      JSON.parse(readFileSync(join(run, `create-bucket/create-bucket.${k}-of-5/results.json`), 'utf8')),
    );
    writeFileSync(join(run, 'results.json'), JSON.stringify({ id: 'run', results: trials }));
    cpSync(run, join(dir, 'copy-of-run'), { recursive: true });
    const { runs, imported } = await runsOf('harbor', [dir], { model: 'claude-opus-4-1' });
    expect(runs.map((r) => r.row.sample)).toEqual([1, 2, 3, 4, 5]);
    expect(imported.skipped).toHaveLength(5);
    expect(imported.skipped[0]).toMatchObject({
      source: `${join(dir, 'run', 'results.json')}#create-bucket.1-of-5`,
      field: 'id',
      reason: expect.stringContaining(`the same trial (${trials[0].uuid}) as ${join(dir, 'copy-of-run')}`),
    });
  });

  it('names a results.json that is not JSON and imports the other runs', async () => {
    const dir = tempDir('replay-tb-');
    cpSync(DROID_RUNS[1]!, join(dir, 'good'), { recursive: true });
    mkdirSync(join(dir, 'bad'));
    writeFileSync(join(dir, 'bad', 'results.json'), '{"results": [');
    const { runs, imported } = await runsOf('harbor', [dir], { model: 'gpt-5' });
    expect(runs).toHaveLength(1);
    expect(imported.skipped).toEqual([
      { source: join(dir, 'bad', 'results.json'), field: '(file)', reason: expect.stringMatching(/JSON/) },
    ]);
  });

  it('skips a run lacking the model the source does not name, saying which flag gives it', async () => {
    const { runs, imported } = await runsOf('harbor', [ORCHESTRATOR_RUN]);
    expect(runs).toEqual([]);
    expect(imported.skipped[0]).toMatchObject({ field: 'model', reason: expect.stringContaining('--model') });
  });
});

/** A Harbor trial folder as `harbor run` lays it out (docs: run-jobs/run-evals): result.json, verifier/, agent/. */
function harborTrial(job: string, name: string, result: object, files: Record<string, unknown> = {}) {
  const dir = join(job, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'result.json'), JSON.stringify({ trial_name: name, ...result }));
  for (const [file, value] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), typeof value === 'string' ? value : JSON.stringify(value));
  }
}

const HARBOR_TRIAL = {
  task_name: 'hello-world',
  config: { agent: { name: 'terminus-2', model_name: 'anthropic/claude-sonnet-4-5' } },
  agent_info: {
    name: 'terminus-2',
    version: '2.0.0',
    model_info: { name: 'claude-sonnet-4-5', provider: 'anthropic' },
  },
  agent_result: { n_input_tokens: 1200, n_cache_tokens: 40, n_output_tokens: 300, cost_usd: 0.0123 },
  verifier_result: { rewards: { reward: 1.0 } },
  exception_info: null,
  started_at: '2025-11-01T04:35:00Z',
  finished_at: '2025-11-01T04:40:00Z',
  agent_execution: { started_at: '2025-11-01T04:35:29Z', finished_at: '2025-11-01T04:38:29.5Z' },
  verifier: { started_at: '2025-11-01T04:38:30Z', finished_at: '2025-11-01T04:39:00Z' },
};

const CTRF = {
  results: {
    tool: { name: 'pytest', version: '8.4.1' },
    summary: { tests: 3, passed: 2, failed: 0, skipped: 1, pending: 0, other: 0 },
    tests: [
      { name: 'tests/test_outputs.py::test_hello_file_exists', status: 'passed', duration: 0.001 },
      { name: 'tests/test_outputs.py::test_hello_file_contents', status: 'passed', duration: 0.001 },
      { name: 'tests/test_outputs.py::test_optional', status: 'skipped', duration: 0 },
    ],
  },
};

const TRAJECTORY = {
  schema_version: 'ATIF-v1.4',
  session_id: 's',
  agent: { name: 'terminus-2', version: '2.0.0', model_name: 'anthropic/claude-sonnet-4-5' },
  steps: [
    { step_id: 1, source: 'user', message: 'task' },
    {
      step_id: 2,
      source: 'agent',
      message: 'creating the file',
      tool_calls: [{ tool_call_id: 'c1', function_name: 'bash_command', arguments: { keystrokes: 'echo hi\n' } }],
    },
    { step_id: 3, source: 'agent', message: 'done', tool_calls: [] },
  ],
  final_metrics: { total_prompt_tokens: 999, total_completion_tokens: 99, total_cost_usd: 0.5, total_steps: 3 },
};

describe('harbor: Harbor trial folders', () => {
  it('maps result.json, the verifier’s per-test results and the ATIF trajectory; trials of a task are samples by start', async () => {
    const job = join(tempDir('replay-harbor-'), 'jobs', '2025-11-01__04-35-00');
    mkdirSync(job, { recursive: true });
    writeFileSync(join(job, 'result.json'), JSON.stringify({ n_total_trials: 2 }));
    harborTrial(job, 'hello-world__b2', { ...HARBOR_TRIAL, started_at: '2025-11-01T05:00:00Z' });
    harborTrial(job, 'hello-world__a1', HARBOR_TRIAL, {
      'verifier/ctrf.json': CTRF,
      'agent/trajectory.json': TRAJECTORY,
    });
    const { runs } = await runsOf('auto', [job]);
    expect(runs.map((r) => r.id)).toEqual([
      'anthropic_claude-sonnet-4-5__hello-world__terminus-2@2.0.0',
      'anthropic_claude-sonnet-4-5__hello-world__terminus-2@2.0.0__s2',
    ]);
    expect(runs[0]!.row).toMatchObject({
      model: 'anthropic/claude-sonnet-4-5',
      harnessVersion: 'terminus-2@2.0.0',
      startedAt: '2025-11-01T04:35:29.000Z',
      finishedAt: '2025-11-01T04:40:00.000Z',
      wallSeconds: 180.5,
      // agent_result wins over the trajectory's final metrics; the agent's steps and their tool calls.
      promptTokens: 1200,
      completionTokens: 300,
      // Derived as from a trajectory: 300 tokens in 180.5 s.
      outputTokensPerMinute: (300 * 60) / 180.5,
      costUsd: 0.0123,
      steps: 2,
      bashCalls: 1,
      readCalls: 0,
      outcome: 'finished',
      metricsSource: 'harbor/1',
    });
    expect(runs[0]!.hiddenTest).toEqual({
      status: 'pass',
      ranAt: '2025-11-01T04:39:00.000Z',
      passed: 2,
      failed: 0,
      total: 2,
      passedTests: ['tests/test_outputs.py::test_hello_file_exists', 'tests/test_outputs.py::test_hello_file_contents'],
      failedTests: [],
    });
    expect(runs.map((r) => r.patch)).toEqual([null, null]);
    // No trajectory: no steps or tool calls are made up; the reward alone gives the result.
    expect(runs[1]!.row).toMatchObject({ steps: null, bashCalls: null });
    expect(runs[1]!.hiddenTest).toMatchObject({ status: 'pass', details: 'Harbor reward 1.' });
  });

  it('reads an agent time-out as the budget, and an exception before any reward as an error, never a fail', async () => {
    const job = tempDir('replay-harbor-');
    harborTrial(job, 'hello-world__t', {
      ...HARBOR_TRIAL,
      verifier_result: { rewards: { reward: 0 } },
      exception_info: { exception_type: 'AgentTimeoutError', exception_message: 'timed out' },
    });
    harborTrial(job, 'other-task__e', {
      ...HARBOR_TRIAL,
      task_name: 'other-task',
      agent_result: { n_input_tokens: null, n_output_tokens: null, cost_usd: null },
      verifier_result: null,
      exception_info: { exception_type: 'EnvironmentStartTimeoutError', exception_message: 'docker' },
    });
    const { runs } = await runsOf('harbor', [job]);
    const byTask = new Map(runs.map((r) => [r.row.taskId, r]));
    expect(byTask.get('hello-world')!.row.outcome).toBe('budget');
    expect(byTask.get('hello-world')!.hiddenTest).toMatchObject({ status: 'fail' });
    expect(byTask.get('other-task')!.row).toMatchObject({
      outcome: 'model-error',
      promptTokens: null,
      costUsd: null,
    });
    expect(byTask.get('other-task')!.hiddenTest).toMatchObject({
      status: 'error',
      details: 'No reward: EnvironmentStartTimeoutError.',
    });
  });

  it('refuses a verifier file over its cap by name, and imports the other trials', async () => {
    const job = tempDir('replay-harbor-');
    harborTrial(job, 'hello-world__big', HARBOR_TRIAL, { 'verifier/ctrf.json': 'x'.repeat(9 * 1024 * 1024) });
    harborTrial(job, 'other-task__ok', { ...HARBOR_TRIAL, task_name: 'other-task' });
    const { runs, imported } = await runsOf('harbor', [job]);
    expect(runs.map((r) => r.row.taskId)).toEqual(['other-task']);
    expect(imported.skipped).toEqual([
      {
        source: join(job, 'hello-world__big', 'result.json'),
        field: '(file)',
        reason: expect.stringContaining(join(job, 'hello-world__big', 'verifier', 'ctrf.json')),
      },
    ]);
  });
});
