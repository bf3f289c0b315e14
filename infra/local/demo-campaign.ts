// The demo campaign (docs/contract.md §6), and what every source of one shares: writing it as run folders,
// delivering them as replay-push does, and the stand-ins the judge talks to. Two sources build campaigns:
// infra/local/demo-lite-campaign.ts (real SWE-bench Lite runs, the default) and, here, the SWE-Bench Pro
// outcomes (data/README.md says where both come from). From the Pro data, real: the model configuration, the
// task, the test-based `resolved` outcome (sent as a hidden-test result, never as a verdict), the turn count
// (steps) and the date of the run. Everything else is generated from a fixed seed, and every run row says so
// with `metricsSource: "generated"`. Each builder counts what it took and what it generated (Provenance).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { patchCounts } from '../../shared/runner/derive.ts';
import { Outbox } from '../../shared/runner/outbox.ts';
import { syncRunFolders, type SyncReport } from '../../shared/runner/sync.ts';
import { RUN_FOLDER_FORMAT } from '../../shared/schema/run-folder.ts';
import { runId } from '../../shared/schema/run-id.ts';
import { blockEnd } from '../../shared/judge/prompt.ts';
import { Provenance } from './demo-provenance.ts';
import { startAnthropicStandIn } from './stand-ins/anthropic-stand-in.ts';
import { startGitHubStandIn } from './stand-ins/github-stand-in.ts';
import { sha256Hex } from '../../shared/sha256.ts';

export const DEMO_CSV = join(import.meta.dirname, '../../data/swe-bench-pro-runs.csv');
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

/** How much of a candidate patch identifies it: the judge's prompt may cut a long patch, never its head. */
const PATCH_HEAD_CHARS = 2000;
const patchHead = (patch: string) => patch.slice(0, PATCH_HEAD_CHARS).trimEnd();
const CANDIDATE_BLOCK = /<<<BEGIN_DATA candidate_patch nonce=([0-9a-f]+)>>>\n/;

/**
 * The stand-in judge finds the run it is asked about by the candidate patch in the prompt's candidate block
 * (shared/judge/prompt.ts). Runs with the same patch get the same answer, as they would from a judge.
 */
export function demoRunFinder(runs: DemoRun[]): (userText: string) => DemoRun | null {
  const byHead = new Map<string, DemoRun>();
  for (const run of runs) {
    const head = patchHead(run.delivery.patch as string);
    if (head && !byHead.has(head)) byHead.set(head, run);
  }
  return (userText) => {
    const block = CANDIDATE_BLOCK.exec(userText);
    if (!block) return null;
    const start = block.index + block[0].length;
    const end = userText.indexOf(blockEnd(block[1]!), start);
    return byHead.get(patchHead(userText.slice(start, end < 0 ? undefined : end))) ?? null;
  };
}

/**
 * What `demo-oracle` answers (docs/contract.md §10 judge answer): the hidden-test outcome, except for a fixed tenth
 * of runs where it disagrees on purpose, so the judge-against-tests view has something to show.
 */
export function oracleAnswer(run: Pick<DemoRun, 'token' | 'resolved'>): Record<string, unknown> {
  const draw = Number.parseInt(run.token.slice(0, 8), 16) / 0xffffffff;
  const verdict = run.resolved
    ? draw < 0.9
      ? 'resolved'
      : draw < 0.97
        ? 'partial'
        : 'wrong'
    : draw < 0.8
      ? 'wrong'
      : draw < 0.92
        ? 'partial'
        : 'resolved';
  const agrees = (verdict === 'resolved') === run.resolved;
  return {
    verdict,
    rootCauseFound: verdict !== 'wrong',
    sameFilesAsReference: verdict === 'resolved',
    testAdded: draw < 0.3,
    wouldCompile: verdict !== 'wrong' || draw < 0.5,
    reason: `demo-oracle stand-in: the hidden tests ${run.resolved ? 'passed' : 'failed'}, so it answers ${verdict}${agrees ? '' : ' — a deliberate disagreement, as a real judge sometimes would'}. Not a model's judgement.`,
  };
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function lognormal(random: () => number, median: number, sigma: number): number {
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return median * Math.exp(sigma * normal);
}

export function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

// ---------------------------------------------------------------------------------------------------
// Delivering the campaign as a runner host would, and judging it

/**
 * Writes every run as a `replay-run/1` folder (result.json last, as a harness does): the row's figures
 * in result.json (they win over what replay-push would derive, and say `metricsSource: "generated"`),
 * the patch, the summary, the task's issue record and the hidden-test result.
 */
export function writeCampaignFolders(campaign: DemoCampaign, runsRoot: string): string[] {
  const issueOf = new Map(campaign.issues.map((i) => [i.taskId as string, i]));
  return campaign.runs.map((run) => {
    const folder = join(runsRoot, run.id);
    mkdirSync(folder, { recursive: true });
    const { row, patch, summary } = run.delivery as { row: Record<string, unknown>; patch: string; summary: string };
    writeFileSync(join(folder, 'candidate.diff'), patch);
    writeFileSync(join(folder, 'summary.md'), summary);
    writeFileSync(join(folder, 'task.json'), JSON.stringify(issueOf.get(row.taskId as string)));
    writeFileSync(join(folder, 'hidden-tests.json'), JSON.stringify(run.hiddenTest.hiddenTestResult));
    writeFileSync(join(folder, 'result.json'), JSON.stringify({ format: RUN_FOLDER_FORMAT, ...row }));
    return folder;
  });
}

export interface DeliveredCounts {
  issues: number;
  runs: number;
  hiddenTests: number;
}

/**
 * Delivers the campaign's run folders with replay-push's sync core: the outbox under the runs root, keys
 * found as on a runner host (environment, then REPLAY_KEYS_DIR). An endpoint that keeps refusing (a
 * wrong key, an unlisted sender) fails after `retryForMs` with the last answer.
 */
export async function deliverCampaign(
  runsRoot: string,
  folders: string[],
  options: { endpoint: string; keysDir: string; retryForMs?: number; onProgress?: (counts: DeliveredCounts) => void },
): Promise<{ counts: DeliveredCounts; report: SyncReport }> {
  const counts: DeliveredCounts = { issues: 0, runs: 0, hiddenTests: 0 };
  const counter = { issue: 'issues', run: 'runs', 'hidden-test': 'hiddenTests' } as const;
  const outbox = await Outbox.open(join(runsRoot, '.replay-outbox'));
  try {
    const report = await syncRunFolders(outbox, folders, runsRoot, {
      endpoint: options.endpoint,
      env: { ...process.env, REPLAY_KEYS_DIR: options.keysDir },
      retryForMs: options.retryForMs ?? 15_000,
      onEvent: (event) => {
        if (event.type !== 'accepted') return;
        if (++counts[counter[event.entry.kind]] % 250 === 0 && event.entry.kind === 'run') options.onProgress?.(counts);
      },
    });
    const problems = [
      ...report.invalid.map((e) => e.message),
      ...report.keyErrors,
      ...report.unpaired.map((u) => `${u.host} has no key in ${u.source}`),
    ];
    if (problems.length) throw new Error(`The demo's run folders could not all be delivered: ${problems.join('; ')}.`);
    if (report.anyQueued) {
      const errors = Object.entries(outbox.hostStates()).flatMap(([host, state]) =>
        state.lastError ? [`${host}: ${state.lastError.message}`] : [],
      );
      throw new Error(
        `The endpoint did not accept every delivery within ${((options.retryForMs ?? 15_000) / 1000).toFixed(0)} s (${errors.join('; ')}); they wait in ${outbox.dir}.`,
      );
    }
    return { counts, report };
  } finally {
    await outbox.close();
  }
}

export const DEMO_JUDGE_MODEL = 'demo-oracle';

export interface DemoJudge {
  /** Set before local mode starts: the judge reads them when its handler is imported. */
  env: Record<string, string>;
  anthropicUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts the stand-ins the judge talks to: `demo-oracle` on the Anthropic Messages protocol, answering
 * from the hidden-test outcome, and a GitHub stand-in serving each task's issue (a placeholder: issue
 * text is never part of the demo data) and original fix (the campaign's, or a placeholder). Only runs of
 * this campaign get an answer.
 */
export async function startDemoJudge(campaign: DemoCampaign): Promise<DemoJudge> {
  const findRun = demoRunFinder(campaign.runs);
  const anthropic = await startAnthropicStandIn({
    answer: (request) => {
      const run = findRun(request.userText);
      return run
        ? JSON.stringify(oracleAnswer(run))
        : { status: 500, message: 'demo-oracle only knows the runs of the demo campaign.' };
    },
  });
  const token = 'demo-github-token';
  const github = await startGitHubStandIn({ token });
  for (const issue of campaign.issues as {
    taskId: string;
    repo: string;
    issueNumber: number;
    baseSha: string;
    mergeSha: string;
  }[]) {
    github.setIssue(issue.repo, issue.issueNumber, {
      title: `Demo task ${issue.taskId}`,
      body: 'Generated: the problem statement is not part of the demo data.',
    });
    github.setCompare(
      issue.repo,
      issue.baseSha,
      issue.mergeSha,
      campaign.references?.get(issue.taskId) ??
        'diff --git a/DEMO_REFERENCE_FIX.md b/DEMO_REFERENCE_FIX.md\n--- a/DEMO_REFERENCE_FIX.md\n+++ b/DEMO_REFERENCE_FIX.md\n@@ -1 +1 @@\n-Generated stand-in for the merged fix.\n+The real fix is not part of the demo data.\n',
    );
  }
  return {
    env: {
      ANTHROPIC_API_KEY: 'demo-oracle-key',
      ANTHROPIC_BASE_URL: anthropic.url,
      GITHUB_API_URL: github.url,
      GITHUB_TOKEN: token,
    },
    anthropicUrl: anthropic.url,
    stop: async () => {
      await Promise.all([anthropic.stop(), github.stop()]);
    },
  };
}
