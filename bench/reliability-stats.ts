// The statistics of repeated samples at 100,000 runs: 12 configurations (6 models × 2 harness versions) × 1,667
// tasks × 5 samples, read as the read API and the page hold them (a run table from a columns body, several rows per
// model, task and harness). Timed in Node, each beside its floor in the same run:
// - `/stats`' figures with pass@k and pass^k for every configuration (groupStatistics), against one grouping
//   pass over the same runs (groupRuns): the route's work once its table is warm, without HTTP;
// - the Reliability figures alone (the counts per task and reliabilityOf for each configuration), which the
//   page computes for its card.
// Median and max of `--rounds` (10) after two warm-up rounds. `npm run bench:reliability`.
import { parseArgs } from 'node:util';
import { encodeColumns, NUMBER_FIELDS, type CompactRun } from '#analytics/columns.ts';
import { groupRuns } from '#analytics/run-grouping.ts';
import { NO_FILTERS, selectRuns } from '#analytics/run-selection.ts';
import { RunTable } from '#analytics/run-table.ts';
import { seeded } from '#analytics/seeded-random.ts';
import { reliabilityOfGroups } from '#analytics/task-samples.ts';
import { groupStatistics } from '#core/read/group-stats.ts';

const args = parseArgs({ options: { rounds: { type: 'string', default: '10' } } }).values;
const ROUNDS = Number(args.rounds);
const [MODELS, HARNESSES, SAMPLES, TASKS] = [6, ['h1', 'h2'], 5, 1667];
const TARGETS = { statsMs: 300, reliabilityMs: 150 };

/** Each configuration resolves each task with a chance of its own (a skill against a difficulty), seeded. */
function* repeatedRuns(): Generator<CompactRun> {
  const random = seeded(38);
  const unknown = Object.fromEntries(NUMBER_FIELDS.map((f) => [f, null])) as Record<
    (typeof NUMBER_FIELDS)[number],
    null
  >;
  const difficulty = Array.from({ length: TASKS }, () => random());
  for (let m = 0; m < MODELS; m++)
    for (const harnessVersion of HARNESSES)
      for (let t = 0; t < TASKS; t++)
        for (let s = 0; s < SAMPLES; s++) {
          const pass = random() < Math.max(0.02, 0.3 + m * 0.08 - difficulty[t]! * 0.5);
          yield {
            ...unknown,
            finishedAt: 1_764_000_000 + t,
            landedAt: 1_764_000_000 + t,
            model: `model-${m}`,
            taskId: `acme__widgets-${t}`,
            harnessVersion,
            host: 'bench-host-1',
            repo: `acme/repo-${t % 40}`,
            tier: null,
            outcome: 'finished',
            verdict: null,
            firstVerdict: null,
            judgeState: 'pending',
            hiddenTest: pass ? 'pass' : 'fail',
            metricsSource: 'generated',
          };
        }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const ms = (v: number) => `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;

function timed(rounds: number, work: () => unknown): number[] {
  const times: number[] = [];
  for (let k = 0; k < rounds + 2; k++) {
    const t0 = performance.now();
    work();
    if (k >= 2) times.push(performance.now() - t0);
  }
  return times;
}

const table = RunTable.fromColumns([encodeColumns(repeatedRuns(), new Date().toISOString())]);
const selection = selectRuns(table, NO_FILTERS);
const floor = timed(ROUNDS, () => groupRuns(table, selection));
let curvePoints = 0;
const stats = timed(ROUNDS, () => {
  const groups = groupStatistics(table, selection, {}, 'tests', 10);
  curvePoints = groups.reduce((n, g) => n + g.samples.curve.length, 0);
});
// As the page's card computes them.
const reliability = timed(ROUNDS, () =>
  reliabilityOfGroups(table, selection, groupRuns(table, selection).groups, 'tests'),
);

const row = (name: string, xs: number[], target: number) =>
  console.log(
    `${name.padEnd(44)}${ms(median(xs)).padStart(10)}${ms(Math.max(...xs)).padStart(10)}` +
      `${ms(median(floor)).padStart(10)}${`${(median(xs) / median(floor)).toFixed(1)}×`.padStart(8)}  ` +
      `< ${target} ms ${median(xs) < target ? 'met' : 'MISSED'}`,
  );
console.log(
  `\nRepeated samples at ${table.size.toLocaleString('en-US')} runs: 12 configurations × ${TASKS} tasks × ` +
    `${SAMPLES} samples (${curvePoints} curve points); ${ROUNDS} rounds.`,
);
console.log(
  `${''.padEnd(44)}${'median'.padStart(10)}${'max'.padStart(10)}${'floor'.padStart(10)}${'ratio'.padStart(8)}  target`,
);
row('/stats figures with pass@k and pass^k', stats, TARGETS.statsMs);
row('Reliability figures (counts + 12 curves)', reliability, TARGETS.reliabilityMs);
console.log('Floor: one grouping pass over the same runs (groupRuns).');
