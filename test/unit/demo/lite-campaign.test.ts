// The default demo campaign, built from the real SWE-bench Lite runs in data/swe-bench-lite/: real patches,
// real hidden-test results with their test names, real figures where the data has them and null where it
// does not, tiers computed from the merged fix, and a data folder that is missing or corrupt named as such.
import { rebuiltDiff } from '#shared/diff.ts';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { demoRunFinder, oracleAnswer } from '#demo/judge.ts';
import { DEMO_DATA_DIR, DEMO_DATA_FILES, DemoDataError, readDemoData } from '#demo/data.ts';
import { buildLiteCampaign } from '#demo/lite-campaign.ts';
import { fixSize, isTestPath, tierOf } from '#runner/fix-size.ts';
import { buildPrompt } from '#core/judge/prompt.ts';
import { deliverySchema } from '#schema/delivery.ts';
import { tempDir } from '../../helpers/run-folders.ts';

const data = readDemoData();
const HOSTS = ['demo-runner-1', 'demo-runner-2'];
const campaign = buildLiteCampaign(data, { seed: 7, hosts: HOSTS });
const recordOf = (row: { model: string; harnessVersion: string; taskId: string }) => {
  const configuration = data.configurations.find(
    (c) => c.model === row.model && c.harnessVersion === row.harnessVersion,
  )!;
  return data.runs.find((r) => r.configuration === configuration.id && r.instanceId === row.taskId)!;
};
type Row = {
  model: string;
  harnessVersion: string;
  taskId: string;
  wallSeconds: number | null;
  maxSteps: number | null;
  wallBudgetSeconds: number | null;
  steps: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  costUsd: number | null;
  metricsSource: string;
  tier: string;
};

describe('the data set', () => {
  it('holds four configurations on the same tasks, every task run by each, and no issue text', () => {
    expect(data.configurations).toHaveLength(4);
    expect(data.tasks.length).toBeGreaterThanOrEqual(80);
    expect(data.tasks.length).toBeLessThanOrEqual(150);
    expect(data.runs).toHaveLength(data.tasks.length * 4);
    for (const task of data.tasks)
      expect(new Set(data.runs.filter((r) => r.instanceId === task.instanceId).map((r) => r.configuration)).size).toBe(
        4,
      );
    const text = readFileSync(join(DEMO_DATA_DIR, DEMO_DATA_FILES.tasks), 'utf8');
    expect(text).not.toMatch(/problem_statement|hints_text|"title"|"body"/);
  });
});

describe('the SWE-bench Lite demo campaign', () => {
  it('delivers every run of the data, each delivery valid', () => {
    expect(campaign.runs).toHaveLength(data.runs.length);
    expect(campaign.tasks).toBe(data.tasks.length);
    for (const d of [
      ...campaign.issues.map((issue) => ({ kind: 'issue', host: HOSTS[0], sentAt: new Date().toISOString(), issue })),
      ...campaign.runs.flatMap((r) => [r.delivery, r.hiddenTest]),
    ])
      expect(deliverySchema.safeParse(d).success).toBe(true);
  });

  it('sends each run with its real patch, hidden-test result and test names, and its figures or null', () => {
    for (const run of campaign.runs) {
      const row = run.delivery.row as Row;
      const record = recordOf(row);
      expect(run.delivery.patch).toBe(record.patch);
      const result = run.hiddenTest.hiddenTestResult as Record<string, unknown>;
      expect(result.status).toBe(record.resolved ? 'pass' : 'fail');
      expect(result.failedTests).toEqual(record.failedTests ?? undefined);
      expect(result.passedTests).toEqual(record.passedTests ?? undefined);
      expect(row).toMatchObject({
        steps: record.steps,
        promptTokens: record.promptTokens,
        completionTokens: record.completionTokens,
        costUsd: record.costUsd,
      });
      // A wall time is the trajectory's; a run without one has none, and says its figures are its result only.
      expect(row.wallSeconds).toBe(record.wallSeconds);
      expect(row.metricsSource).toBe(record.wallSeconds === null ? 'result-only' : 'trajectory');
      // No source records a budget: none is declared, so whether one ran out is not claimed.
      expect({ maxSteps: row.maxSteps ?? null, wallBudgetSeconds: row.wallBudgetSeconds ?? null }).toEqual({
        maxSteps: null,
        wallBudgetSeconds: null,
      });
    }
    expect(
      campaign.runs.some((r) => (r.hiddenTest.hiddenTestResult as { failedTests?: string[] }).failedTests?.length),
    ).toBe(true);
  });

  it('serves each task its real merged fix, and computes the tier from the fix’s code lines', () => {
    for (const task of data.tasks) {
      const issue = campaign.issues.find((i) => i.taskId === task.instanceId) as Record<string, unknown>;
      expect(campaign.references!.get(task.instanceId)).toBe(task.goldPatch + task.testPatch);
      expect(issue).toMatchObject({ repo: task.repo, baseSha: task.baseCommit, fixPrNumber: task.prNumber });
      expect(issue.tier).toBe(tierOf(issue.codeLinesChanged as number));
    }
    const runTiers = campaign.runs.map((r) => (r.delivery.row as Row).tier);
    expect(new Set(runTiers).size).toBeGreaterThan(1);
  });

  it('counts a fix’s changed lines outside test files only, and tiers them at 30 and 250', () => {
    const fix = [
      'diff --git a/src/parse.py b/src/parse.py\n--- a/src/parse.py\n+++ b/src/parse.py\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n',
      'diff --git a/tests/test_parse.py b/tests/test_parse.py\n--- a/tests/test_parse.py\n+++ b/tests/test_parse.py\n@@ -1 +1,3 @@\n x\n+y\n+z\n',
    ].join('');
    expect(fixSize(fix)).toEqual({
      filesChanged: 2,
      linesAdded: 3,
      linesRemoved: 1,
      codeFilesChanged: 1,
      codeLinesChanged: 2,
      fixHasTests: true,
    });
    expect(
      ['sympy/core/tests/test_basic.py', 'lib/testing/x.py', 'conftest.py', 'pkg/util_test.py'].every(isTestPath),
    ).toBe(true);
    expect(['django/core/validators.py', 'src/contest.py', 'src/latest.py'].some(isTestPath)).toBe(false);
    expect([30, 31, 250, 251].map(tierOf)).toEqual(['easy', 'medium', 'medium', 'hard']);
  });

  it('counts what is real, generated and unknown for the banner, from the runs it built', () => {
    const { provenance } = campaign;
    const runs = campaign.runs.length;
    const named = data.runs.filter((r) => r.failedTests !== null).length;
    expect(provenance.count('real', 'runs', 'configuration, task and candidate patch')).toBe(runs);
    expect(provenance.count('real', 'runs', 'test names')).toBe(named);
    expect(provenance.count('unknown', 'runs', 'test names')).toBe(runs - named);
    expect(provenance.count('real', 'runs', 'cost')).toBe(data.runs.filter((r) => r.costUsd !== null).length);
    expect(provenance.count('unknown', 'runs', 'wall time')).toBe(
      data.runs.filter((r) => r.wallSeconds === null).length,
    );
    expect(provenance.count('generated', 'runs', 'wall time')).toBe(0);
    expect(provenance.count('unknown', 'runs', 'whether a budget ran out')).toBe(runs);
    expect(provenance.count('generated', 'tasks', 'issue number (the PR’s)')).toBe(data.tasks.length);
    expect(provenance.lines().map((l) => l.split(':')[0])).toEqual(['Real', 'Generated', 'Unknown (null)']);
  });

  it('lets the stand-in judge find each run by its real patch in the prompt, answering from its tests', () => {
    const find = demoRunFinder(campaign.runs);
    const sample = campaign.runs.filter((_, k) => k % 37 === 0);
    for (const run of sample) {
      const { sharedPrompt, prompt } = buildPrompt(
        {
          issueText: 'Generated: the problem statement is not part of the demo data.',
          referenceDiff: campaign.references!.get((run.delivery.row as Row).taskId)!,
          omittedLockFiles: [],
          candidateDiff: rebuiltDiff(run.delivery.patch as string),
          candidateTruncated: false,
          maxDiffChars: 60_000,
        },
        'c0ffee',
      );
      const found = find(sharedPrompt + prompt)!;
      expect(found.delivery.patch).toBe(run.delivery.patch);
      expect(oracleAnswer(found).reason).toMatch(run.resolved ? /passed/ : /failed/);
    }
  });
});

describe('a demo data folder', () => {
  const copy = () => {
    const dir = join(tempDir('replay-demo-data-'), 'swe-bench-lite');
    cpSync(DEMO_DATA_DIR, dir, { recursive: true });
    return dir;
  };

  it('that is missing is named, file and all', () => {
    const dir = copy();
    rmSync(join(dir, DEMO_DATA_FILES.tasks));
    expect(() => readDemoData(dir)).toThrow(DemoDataError);
    expect(() => readDemoData(dir)).toThrow(`${join(dir, DEMO_DATA_FILES.tasks)} is missing.`);
  });

  it('with a corrupt line is named with the line and what is wrong', () => {
    const dir = copy();
    const file = join(dir, DEMO_DATA_FILES.runs);
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[2] = lines[2]!.slice(0, 100);
    writeFileSync(file, lines.join('\n'));
    expect(() => readDemoData(dir)).toThrow(`${file}:3 is corrupt: the line is not JSON.`);
    lines[2] = JSON.stringify({
      ...JSON.parse(readFileSync(join(DEMO_DATA_DIR, DEMO_DATA_FILES.runs), 'utf8').split('\n')[2]!),
      resolved: 'yes',
    });
    writeFileSync(file, lines.join('\n'));
    expect(() => readDemoData(dir)).toThrow(new RegExp(`${file}:3 is corrupt at resolved: `));
  });
});
