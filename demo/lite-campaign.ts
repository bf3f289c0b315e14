// The default demo campaign: real runs of four agents on the same SWE-bench Lite tasks (data/swe-bench-lite/,
// data/README.md). Each run is delivered with its real candidate patch and its real hidden-test result (the
// harness's resolved, with the named tests' pass or fail where the eval logs have them), and cost, tokens,
// steps and wall time where the agent's trajectory records them. Each task's original fix is its real merged
// fix, served to the judge by the stand-in GitHub, and its tier comes from that fix's changed code lines.
// A figure the data does not hold is null and shows as unknown: the wall time, steps, tokens and cost of runs
// without a trajectory, and whether a budget ran out (no source records a budget). What the pipeline needs and the
// data does not hold is generated from a fixed seed and counted as generated for the banner: the run times,
// runner hosts, task order and waves, and the merge commit the fix is served under; the issue number is the fix
// PR's. Nothing reads the issue text: the data has none.
import { patchCounts } from '#runner/derive.ts';
import { fixSize, tierOf } from '#runner/fix-size.ts';
import { runId } from '#schema/run-id.ts';
import { sha256Hex } from '#shared/sha256.ts';
import { type DemoCampaign, type DemoRun } from './campaign.ts';
import { lognormal, seeded, shuffle } from './random.ts';
import type { DemoData, DemoTask } from './data.ts';
import { Provenance } from './provenance.ts';
import type { CampaignDeclaration } from '#analytics/contract.ts';

const TASKS_PER_WAVE = 25;
/** When the generated run times start; each configuration's runs follow one another from here. */
const CAMPAIGN_START = Date.parse('2024-07-01T08:00:00Z');

export interface LiteCampaignOptions {
  /** How many of the data's tasks (in a fixed-seed order); all of them when absent. */
  tasks?: number;
  seed: number;
  /** Runner hosts the runs are spread over; each must be a sender of the target space. */
  hosts: string[];
}

/** What the Lite demo's tasks are a sample of, as its cockpit declares it (`cockpits.<name>.campaign`). */
export const LITE_CAMPAIGN: CampaignDeclaration = {
  population: { name: 'SWE-bench Lite', size: 300 },
  sample:
    'drawn from the 222 all four agents produced a patch for, keeping each pattern of outcomes’ share ' +
    '(tasks every agent patched are easier than Lite as a whole)',
};

/** The merged fix as one diff: its code, then its tests (SWE-bench keeps them apart). */
export const originalFix = (task: DemoTask) => task.goldPatch + task.testPatch;

export function buildLiteCampaign(data: DemoData, options: LiteCampaignOptions): DemoCampaign {
  const streamFor = (key: string) => seeded(Number.parseInt(sha256Hex(`${options.seed}:${key}`).slice(0, 8), 16));
  const ordered = shuffle(
    [...data.tasks].sort((a, b) => a.instanceId.localeCompare(b.instanceId)),
    seeded(options.seed),
  ).slice(0, options.tasks ?? data.tasks.length);
  const provenance = new Provenance();

  const issues = ordered.map((task, k) => {
    const size = fixSize(originalFix(task));
    provenance.note('real', 'tasks', 'repository, base commit and PR number');
    provenance.note('real', 'tasks', 'original fix, its size and tier');
    for (const field of ['order and wave', 'issue number (the PR’s)', 'merge commit'])
      provenance.note('generated', 'tasks', field);
    return {
      taskId: task.instanceId,
      order: k + 1,
      repo: task.repo,
      // SWE-bench names a task's fix PR, not always a GitHub issue (Django's are Trac tickets). GitHub answers a
      // PR's number as an issue's too, so links and the judge's issue request reach the fix's own page.
      issueNumber: task.prNumber,
      fixPrNumber: task.prNumber,
      tier: tierOf(size.codeLinesChanged),
      wave: Math.floor(k / TASKS_PER_WAVE) + 1,
      ...size,
      baseSha: task.baseCommit,
      mergeSha: sha256Hex(`merge:${task.instanceId}`).slice(0, 40),
    };
  });
  const issueOf = new Map(issues.map((i) => [i.taskId, i]));
  const order = new Map(ordered.map((t, k) => [t.instanceId, k]));
  const configurations = new Map(data.configurations.map((c, k) => [c.id, { ...c, index: k }]));
  const sourceOf = (id: string) => configurations.get(id)!.source;

  const runs = data.runs
    .filter((r) => order.has(r.instanceId))
    .sort(
      (a, b) =>
        configurations.get(a.configuration)!.index - configurations.get(b.configuration)!.index ||
        order.get(a.instanceId)! - order.get(b.instanceId)!,
    )
    .map((r): DemoRun => {
      const configuration = configurations.get(r.configuration)!;
      const issue = issueOf.get(r.instanceId)!;
      const random = streamFor(`run:${r.configuration}:${r.instanceId}`);
      const host = options.hosts[Math.floor(random() * options.hosts.length)]!;
      const startedAt = CAMPAIGN_START + configuration.index * 3_600_000 + order.get(r.instanceId)! * 900_000;
      // The finish time is generated like the start; only a trajectory's duration is a wall time.
      const finishedAt = new Date(
        startedAt + (r.wallSeconds ?? Math.round(lognormal(random, 240, 0.6) * 10) / 10) * 1000,
      ).toISOString();
      const row = {
        model: configuration.model,
        taskId: r.instanceId,
        harnessVersion: configuration.harnessVersion,
        host,
        repo: issue.repo,
        tier: issue.tier,
        wave: issue.wave,
        hostHardware: 'demo runner (generated)',
        startedAt: new Date(startedAt).toISOString(),
        finishedAt,
        wallSeconds: r.wallSeconds,
        steps: r.steps,
        // Every run of the data ended with a patch. No source records a step or time budget, so none is
        // declared (maxSteps, wallBudgetSeconds null) and whether one ran out stays unknown.
        outcome: 'finished',
        promptTokens: r.promptTokens,
        completionTokens: r.completionTokens,
        costUsd: r.costUsd,
        outputTokensPerMinute:
          r.completionTokens !== null && r.wallSeconds ? r.completionTokens / (r.wallSeconds / 60) : null,
        contamination: [],
        // The figures of a run with a trajectory are its own; a run without one has its result only.
        metricsSource: r.wallSeconds === null ? 'result-only' : 'trajectory',
        ...patchCounts(r.patch),
      };
      const id = runId(row);
      const named = r.failedTests !== null && r.passedTests !== null;
      const hiddenTestResult = {
        status: !r.patchApplied ? 'error' : r.resolved ? 'pass' : 'fail',
        ...(named
          ? {
              passed: r.passedTests!.length,
              failed: r.failedTests!.length,
              total: r.passedTests!.length + r.failedTests!.length,
              failedTests: r.failedTests!,
              passedTests: r.passedTests!,
            }
          : {}),
        ranAt: new Date(Date.parse(finishedAt) + 10 * 60_000).toISOString(),
        details:
          `SWE-bench harness, as published in ${sourceOf(r.configuration).repository} (${sourceOf(r.configuration).path}): ` +
          `${r.patchApplied ? (r.resolved ? 'resolved' : 'not resolved') : 'the patch did not apply'}.${
            named
              ? ' The tests named ' + 'are the task’s FAIL_TO_PASS and PASS_TO_PASS, read from the eval log.'
              : ' No eval log was published for this run.'
          }`,
      };

      provenance.note('real', 'runs', 'configuration, task and candidate patch');
      provenance.note('real', 'runs', 'hidden-test result');
      const known = (field: string, value: unknown) =>
        provenance.note(value === null ? 'unknown' : 'real', 'runs', field);
      known('test names', named ? true : null);
      known('cost', r.costUsd);
      known('tokens', r.promptTokens);
      known('steps', r.steps);
      known('wall time', r.wallSeconds);
      provenance.note('unknown', 'runs', 'whether a budget ran out');
      for (const field of ['start and finish times', 'runner host']) provenance.note('generated', 'runs', field);
      return {
        id,
        host,
        resolved: r.resolved,
        token: sha256Hex(`run:${id}`).slice(0, 16),
        delivery: { kind: 'run', host, id, row, patch: r.patch, patchTruncated: false, summary: '' },
        hiddenTest: { kind: 'hidden-test', host, id, finishedAt, hiddenTestResult },
      };
    });

  return {
    issues,
    runs,
    models: new Set(data.configurations.map((c) => c.model)).size,
    tasks: issues.length,
    source: `${issues.length} SWE-bench Lite tasks from data/swe-bench-lite/ (${data.configurations.length} agents' published runs, seed ${options.seed})`,
    provenance,
    references: new Map(ordered.map((t) => [t.instanceId, originalFix(t)])),
  };
}
