// The benchmarks' deterministic synthetic campaign: MODELS × harness versions configurations, each on
// runs / configurations tasks, with plausible figures (seeded), some unknowns, contamination, empty
// patches, hidden tests and judge verdicts. Rows are built by the real landing rules (direct-load.ts).
// A generator, so a million runs can be projected to the read side's form one at a time without holding
// a million full rows.
import { seeded } from '#demo/random.ts';
import type { SentIssue } from '#schema/issue.ts';
import { runId, type RunRow } from '#schema/run.ts';
import { judged, landedRow, storedIssue } from './direct-load.ts';

export interface SyntheticCampaign {
  space: string;
  runs: number;
  hosts: string[];
  models: number;
  harnesses: string[];
  /** Tasks per wave (default 500). */
  tasksPerWave?: number;
  /** Samples of each task per configuration (default 1): sample k > 1 is a run of its own (docs/contract.md §2). */
  samples?: number;
}

export const BENCH_CAMPAIGN = {
  hosts: ['bench-host-1', 'bench-host-2', 'bench-host-3'],
  models: 25,
  harnesses: ['h1', 'h2'],
};

const taskId = (t: number) => `synthetic__repo-${t % 40}-task-${String(t).padStart(5, '0')}`;

/**
 * The issues, then a generator of the rows: one random sequence, so the same campaign comes out every
 * time. `landedAt` is the rows' landing (and updatedAt) instant: the read side's deltas go by it.
 */
export function syntheticCampaign(
  c: SyntheticCampaign,
  landedAt: string,
): { issues: SentIssue[]; rows: () => Generator<RunRow> } {
  const random = seeded(42);
  const configurations = c.models * c.harnesses.length;
  const samples = c.samples ?? 1;
  const tasks = Math.ceil(c.runs / configurations / samples);
  const issues = Array.from({ length: tasks }, (_, t) =>
    storedIssue(
      c.space,
      {
        taskId: taskId(t),
        order: t + 1,
        repo: `synthetic/repo-${t % 40}`,
        issueNumber: t + 1,
        tier: (['easy', 'medium', 'hard'] as const)[Math.floor(random() * 3)],
        wave: Math.floor(t / (c.tasksPerWave ?? 500)) + 1,
        prToMergeHours: Math.round(random() * 2000) / 10,
        baseSha: 'a'.repeat(40),
        mergeSha: 'b'.repeat(40),
      },
      landedAt,
    ),
  );
  function* rows(): Generator<RunRow> {
    for (let k = 0; k < c.runs; k++) {
      const config = k % configurations;
      const t = Math.floor(k / configurations / samples);
      const sample = (Math.floor(k / configurations) % samples) + 1;
      const skill = (config % c.models) / c.models;
      const steps = 5 + Math.floor(random() * 120);
      const known = () => random() > 0.05;
      const wall = known() ? Math.round(steps * (5 + random() * 20) * 10) / 10 : null;
      const tokens = known() ? Math.round(steps * (100 + random() * 600)) : null;
      const resolved = random() < 0.15 + skill * 0.5;
      const identity = {
        model: `synthetic-model-${String(config % c.models).padStart(2, '0')}`,
        taskId: taskId(t),
        harnessVersion: c.harnesses[Math.floor(config / c.models)]!,
        ...(sample > 1 && { sample }),
      };
      const delivery = {
        kind: 'run',
        id: runId(identity),
        row: {
          ...identity,
          host: c.hosts[k % c.hosts.length],
          repo: `synthetic/repo-${t % 40}`,
          tier: issues[t]!.tier,
          wave: issues[t]!.wave,
          startedAt: '2026-01-10T00:00:00Z',
          finishedAt: new Date(Date.parse('2026-01-10T00:00:00Z') + k * 1000).toISOString(),
          wallSeconds: wall,
          steps,
          maxSteps: 120,
          outcome: steps >= 120 ? 'budget' : 'finished',
          promptTokens: tokens && tokens * 20,
          completionTokens: tokens,
          outputTokensPerMinute: wall && tokens ? Math.round((tokens / (wall / 60)) * 10) / 10 : null,
          patchFilesChanged: 1 + Math.floor(random() * 4),
          patchLinesAdded: Math.floor(random() * 80),
          patchLinesRemoved: Math.floor(random() * 40),
          contamination: random() < 0.01 ? [{ step: 3, path: 'tests/hidden.py' }] : [],
          metricsSource: 'generated',
        },
        patch: random() < 0.08 ? '' : 'diff --git a/x b/x\n',
      };
      const hidden = { hiddenTestResult: { status: resolved ? 'pass' : 'fail', ranAt: landedAt } };
      const row = landedRow(c.space, delivery, landedAt, random() < 0.9 ? hidden : undefined);
      const verdict = random() < 0.1 ? (resolved ? 'partial' : 'resolved') : resolved ? 'resolved' : 'wrong';
      yield random() < 0.9
        ? judged(
            row,
            {
              verdict,
              rootCauseFound: resolved,
              sameFilesAsReference: resolved,
              testAdded: false,
              wouldCompile: true,
              reason: 'synthetic',
            },
            'bench-judge',
            landedAt,
          )
        : Object.assign({}, row, {
            judgeNextAttemptAt: null,
            judgeState: row.judgeVerdict ? row.judgeState : 'waiting-credentials',
          });
    }
  }
  return { issues, rows };
}
