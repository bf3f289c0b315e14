// The demo campaign (docs/contract.md §6) and the shape every source of one shares; demo-delivery.ts writes
// and delivers it, demo-judge.ts starts the stand-ins the judge talks to. Two sources build campaigns:
// demo/lite-campaign.ts (real SWE-bench Lite runs, the default) and, here, the SWE-Bench Pro
// outcomes (data/README.md says where both come from). From the Pro data, real: the model configuration, the
// task, the test-based `resolved` outcome (sent as a hidden-test result, never as a verdict), the turn count
// (steps) and the date of the run. Everything else is generated from a fixed seed, and every run row says so
// with `metricsSource: "generated"`. Each builder counts what it took and what it generated (Provenance).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { patchCounts } from '#runner/derive.ts';
import { runId } from '#schema/run-id.ts';
import { Provenance } from './provenance.ts';
import { lognormal, seeded, shuffle } from './random.ts';
import { sha256Hex } from '#shared/sha256.ts';

export const DEMO_CSV = join(import.meta.dirname, '../data/swe-bench-pro-runs.csv');
/** The benchmark's step cap: its longest runs stop at 251 turns. */
const MAX_STEPS = 250;
const WALL_BUDGET_SECONDS = 3 * 3600;
const TASKS_PER_WAVE = 25;

export interface SourceRun {
  instanceId: string;
  modelName: string;
  resolved: boolean;
  turns: number;
  createdAt: string;
}

export interface DemoRun {
  id: string;
  host: string;
  resolved: boolean;
  /** Drawn from the run id: the stand-in judge's fixed choice of where to disagree. */
  token: string;
  delivery: Record<string, unknown>;
  hiddenTest: Record<string, unknown>;
}

export interface DemoCampaign {
  issues: Record<string, unknown>[];
  runs: DemoRun[];
  models: number;
  tasks: number;
  /** What it was built from, for the demo's banner: "120 SWE-bench Lite tasks from data/swe-bench-lite/ …". */
  source: string;
  /** Which fields are real, generated or unknown, counted over the runs and tasks built. */
  provenance: Provenance;
  /** How its runs get their verdicts, for the banner, where not from the stand-in judge. */
  verdicts?: string;
  /** Each task's original fix (taskId → diff), as the stand-in GitHub serves it; without it, a placeholder. */
  references?: Map<string, string>;
}

export interface CampaignOptions {
  /** How many tasks (all model configurations run each): a fixed-seed sample of the 730. */
  tasks: number;
  seed: number;
  /** Runner hosts the runs are spread over; each must be a sender of the target space. */
  hosts: string[];
}

const SOURCE_COLUMNS = [
  'metadata.instance_id',
  'metadata.model_name',
  'metadata.resolved',
  'metadata.turns',
  'created_at',
] as const;

/** Reads the CSV (RFC 4180, through csv-parse): one run per record, by its header's column names. */
export function readSourceRuns(path = DEMO_CSV): SourceRun[] {
  const records = parse(readFileSync(path, 'utf8'), {
    skip_empty_lines: true,
    columns: (header: string[]) => {
      const missing = SOURCE_COLUMNS.find((name) => !header.includes(name));
      if (missing) throw new Error(`${path} has no column ${missing}.`);
      return header;
    },
  }) as Record<(typeof SOURCE_COLUMNS)[number], string>[];
  return records.map((r) => ({
    instanceId: r['metadata.instance_id'],
    modelName: r['metadata.model_name'],
    resolved: r['metadata.resolved'] === 'true',
    turns: Number(r['metadata.turns']),
    createdAt: new Date(r.created_at).toISOString(),
  }));
}

/** "GPT-5 High - paper" → model "GPT-5 High", harness "paper": the suffix names the evaluation batch. */
export function splitModelName(name: string): { model: string; harnessVersion: string } {
  const m = /^(.*?) -{1,2} (\S+)$/.exec(name);
  return m ? { model: m[1]!, harnessVersion: m[2]! } : { model: name, harnessVersion: 'unknown' };
}

/** `instance_<owner>__<repo>-<base sha>[-v<…>]` → repo and base commit. */
export function parseInstance(instanceId: string): { repo: string; baseSha: string } {
  const m = /^instance_(.+?)__(.+?)-([0-9a-f]{40})/.exec(instanceId);
  if (!m) throw new Error(`Unexpected SWE-Bench Pro instance id ${instanceId}.`);
  return { repo: `${m[1]}/${m[2]}`, baseSha: m[3]! };
}

export function buildCampaign(source: SourceRun[], options: CampaignOptions): DemoCampaign {
  const instances = shuffle([...new Set(source.map((r) => r.instanceId))].sort(), seeded(options.seed)).slice(
    0,
    options.tasks,
  );
  const chosen = new Set(instances);
  // Every task, model and run draws from its own stream: a campaign of more tasks extends a smaller one
  // with the same seed instead of changing its figures (a re-run demo then only retries its deliveries).
  const streamFor = (key: string) => seeded(Number.parseInt(sha256Hex(`${options.seed}:${key}`).slice(0, 8), 16));

  const issues = instances.map((instanceId, k) => {
    const random = streamFor(`task:${instanceId}`);
    const { repo, baseSha } = parseInstance(instanceId);
    const codeLinesChanged = Math.max(1, Math.round(lognormal(random, 60, 1.1)));
    const linesRemoved = Math.round(codeLinesChanged * (0.2 + 0.4 * random()));
    return {
      taskId: instanceId,
      order: k + 1,
      repo,
      issueNumber: 1000 + Math.floor(random() * 20_000),
      fixPrNumber: 1000 + Math.floor(random() * 20_000),
      tier: codeLinesChanged <= 30 ? 'easy' : codeLinesChanged <= 250 ? 'medium' : 'hard',
      wave: Math.floor(k / TASKS_PER_WAVE) + 1,
      codeLinesChanged,
      codeFilesChanged: Math.max(1, Math.round(codeLinesChanged / 40 + random() * 2)),
      linesAdded: codeLinesChanged - linesRemoved,
      linesRemoved,
      fixHasTests: random() < 0.7,
      commits: 1 + Math.floor(random() * 4),
      prToMergeHours: round(lognormal(random, 30, 1.4), 1),
      baseSha,
      mergeSha: sha256Hex(`merge:${instanceId}`).slice(0, 40),
    };
  });
  const issueOf = new Map(issues.map((i) => [i.taskId, i]));
  const provenance = new Provenance();
  for (const _ of issues) {
    provenance.note('real', 'tasks', 'repository and base commit');
    for (const field of ['tier, wave and order', 'issue and PR numbers', 'fix size and merge time', 'merge commit'])
      provenance.note('generated', 'tasks', field);
  }

  const pace = new Map<string, { secondsPerStep: number; tokensPerStep: number }>();
  const runs = source
    .filter((r) => chosen.has(r.instanceId))
    .sort(
      (a, b) =>
        a.modelName.localeCompare(b.modelName) || instances.indexOf(a.instanceId) - instances.indexOf(b.instanceId),
    )
    .map((r): DemoRun => {
      const { model, harnessVersion } = splitModelName(r.modelName);
      const issue = issueOf.get(r.instanceId)!;
      let speed = pace.get(r.modelName);
      if (!speed) {
        const modelRandom = streamFor(`model:${r.modelName}`);
        pace.set(
          r.modelName,
          (speed = {
            secondsPerStep: lognormal(modelRandom, 14, 0.5),
            tokensPerStep: lognormal(modelRandom, 380, 0.5),
          }),
        );
      }
      const random = streamFor(`run:${r.modelName}:${r.instanceId}`);
      const host = options.hosts[Math.floor(random() * options.hosts.length)]!;
      const steps = r.turns;
      const wallSeconds = round(
        Math.min(WALL_BUDGET_SECONDS, steps * speed.secondsPerStep * lognormal(random, 1, 0.3) + 20),
        1,
      );
      const outcome =
        steps >= MAX_STEPS || wallSeconds >= WALL_BUDGET_SECONDS ? 'budget' : steps <= 2 ? 'model-error' : 'finished';
      const completionTokens = Math.round(steps * speed.tokensPerStep * lognormal(random, 1, 0.35));
      const emptyPatch = outcome === 'model-error' || (!r.resolved && random() < 0.12);
      const contaminated = !emptyPatch && random() < 0.015;
      const row = {
        model,
        taskId: r.instanceId,
        harnessVersion,
        host,
        repo: issue.repo,
        tier: issue.tier,
        wave: issue.wave,
        hostHardware: 'demo runner (generated)',
        maxSteps: MAX_STEPS,
        wallBudgetSeconds: WALL_BUDGET_SECONDS,
        startedAt: r.createdAt,
        finishedAt: new Date(Date.parse(r.createdAt) + wallSeconds * 1000).toISOString(),
        wallSeconds,
        steps,
        outcome,
        promptTokens: Math.round(steps * steps * 900 * lognormal(random, 1, 0.3) + 4000),
        completionTokens,
        outputTokensPerMinute: round(completionTokens / (wallSeconds / 60), 1),
        bashCalls: Math.round(steps * 0.45),
        readCalls: Math.round(steps * 0.3),
        editCalls: Math.round(steps * 0.12),
        contamination: contaminated
          ? [
              {
                step: Math.max(1, Math.floor(steps / 2)),
                path: 'tests/hidden/test_fix.py',
                reason: 'generated example: opened a hidden test file',
              },
            ]
          : [],
        metricsSource: 'generated',
      };
      const id = runId(row);
      const token = sha256Hex(`run:${id}`).slice(0, 16);
      const patch = emptyPatch
        ? ''
        : demoPatch(row.model, row.taskId, harnessVersion, token, 2 + Math.floor(random() * 30), random);
      const delivery = {
        kind: 'run',
        host,
        id,
        row: { ...row, ...patchCounts(patch) },
        patch,
        patchTruncated: false,
        summary: emptyPatch
          ? `Generated summary: ${model} stopped after ${steps} steps without changing a file.`
          : `Generated summary (not model output): ${model} worked for ${steps} steps on ${issue.repo} and left the patch shown.`,
      };
      const hiddenTest = {
        kind: 'hidden-test',
        host,
        id,
        finishedAt: row.finishedAt,
        hiddenTestResult: {
          status: r.resolved ? 'pass' : 'fail',
          ranAt: new Date(Date.parse(row.finishedAt) + 10 * 60_000).toISOString(),
          details: 'SWE-Bench Pro test-based evaluation: the real outcome of this run.',
        },
      };
      for (const field of ['model configuration and task', 'hidden-test outcome', 'steps', 'start time'])
        provenance.note('real', 'runs', field);
      for (const field of [
        'outcome (from the step count)',
        'wall time and tokens',
        'patch and summary',
        'contamination',
        'runner host',
      ])
        provenance.note('generated', 'runs', field);
      provenance.note('unknown', 'runs', 'cost');
      return { id, host, resolved: r.resolved, token, delivery, hiddenTest };
    });
  return {
    issues,
    runs,
    models: new Set(runs.map((r) => (r.delivery.row as { model: string }).model)).size,
    tasks: instances.length,
    source: `${instances.length} of the 730 SWE-Bench Pro tasks, from the ${source.length} runs in data/swe-bench-pro-runs.csv (seed ${options.seed})`,
    provenance,
  };
}

/** A patch that says what it is: SWE-Bench Pro publishes outcomes, not the models' patches. */
function demoPatch(
  model: string,
  taskId: string,
  harness: string,
  token: string,
  lines: number,
  random: () => number,
): string {
  const added = Array.from(
    { length: lines },
    (_, k) => `+generated line ${k + 1} of ${lines}${random() < 0.3 ? ' (would change code here)' : ''}`,
  );
  return [
    'diff --git a/DEMO_GENERATED_PATCH.md b/DEMO_GENERATED_PATCH.md',
    `index ${token.slice(0, 7)}..${token.slice(7, 14)} 100644`,
    '--- a/DEMO_GENERATED_PATCH.md',
    '+++ b/DEMO_GENERATED_PATCH.md',
    `@@ -1,3 +1,${lines + 3} @@`,
    ' # Demo campaign: generated patch',
    '-This placeholder stands where a model patch would be.',
    `+Generated stand-in for the patch of ${model} on ${taskId} (harness ${harness}); not model output.`,
    `+demo run token: ${token}`,
    ...added,
    ' ',
    '',
  ].join('\n');
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
