// The SWE-Bench Pro demo campaign: real outcomes and step counts from data/, everything else generated and marked
// so, and a stand-in judge that answers from the hidden-test outcome with some disagreement.
import { rebuiltDiff } from '#shared/diff.ts';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { buildCampaign, parseInstance, readSourceRuns, splitModelName } from '#demo/campaign.ts';
import { writeCampaignFolders } from '#demo/delivery.ts';
import { demoRunFinder, oracleAnswer } from '#demo/judge.ts';
import { buildRunDelivery } from '#runner/delivery.ts';
import { prepareRun, readRunFolder } from '#runner/run-folder.ts';
import { buildPrompt } from '#core/judge/prompt.ts';
import { deliverySchema } from '#schema/delivery.ts';

const source = readSourceRuns();

describe('the demo campaign', () => {
  it('reads every run of the copied SWE-Bench Pro data', () => {
    expect(source.length).toBeGreaterThan(9700);
    expect(new Set(source.map((r) => r.instanceId)).size).toBe(730);
    expect(source.every((r) => Number.isInteger(r.turns) && !Number.isNaN(Date.parse(r.createdAt)))).toBe(true);
  });

  it('reads quoted fields holding commas, doubled quotes and line breaks, CRLF lines, and refuses a file missing a column', () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-csv-'));
    const header =
      'agent_run_id,metadata.instance_id,metadata.model_name,metadata.resolved,metadata.turns,tag,created_at';
    const csv = join(dir, 'runs.csv');
    writeFileSync(
      csv,
      `${header}\r\na,instance_o__r-abc,"Model ""X"", big - paper",true,7,"line\nbreak","Oct 13, 2025, 10:41 PM UTC"\r\n\r\n`,
    );
    expect(readSourceRuns(csv)).toEqual([
      {
        instanceId: 'instance_o__r-abc',
        modelName: 'Model "X", big - paper',
        resolved: true,
        turns: 7,
        createdAt: '2025-10-13T22:41:00.000Z',
      },
    ]);
    const noTurns = join(dir, 'no-turns.csv');
    writeFileSync(noTurns, `${header.replace('metadata.turns', 'steps')}\n`);
    expect(() => readSourceRuns(noTurns)).toThrow(`${noTurns} has no column metadata.turns.`);
  });

  it('splits model configurations into model and harness version, and instances into repo and base commit', () => {
    expect(splitModelName('GPT-5 High - paper')).toEqual({ model: 'GPT-5 High', harnessVersion: 'paper' });
    expect(splitModelName('Gemini 2.5 Pro Preview -- debug-oct22')).toEqual({
      model: 'Gemini 2.5 Pro Preview',
      harnessVersion: 'debug-oct22',
    });
    expect(parseInstance('instance_element-hq__element-web-ec0f940ef0e8e3b61078f145f34dc40d1938e6c5-vnan')).toEqual({
      repo: 'element-hq/element-web',
      baseSha: 'ec0f940ef0e8e3b61078f145f34dc40d1938e6c5',
    });
  });

  const campaign = buildCampaign(source, { tasks: 20, seed: 7, hosts: ['demo-runner-1', 'demo-runner-2'] });

  it('is the same for the same seed, and every delivery is valid', () => {
    expect(
      buildCampaign(source, { tasks: 20, seed: 7, hosts: ['demo-runner-1', 'demo-runner-2'] }).runs.map((r) => r.id),
    ).toEqual(campaign.runs.map((r) => r.id));
    for (const d of [
      ...campaign.issues.map((issue) => ({
        kind: 'issue',
        host: 'demo-runner-1',
        sentAt: new Date().toISOString(),
        issue,
      })),
      ...campaign.runs.flatMap((r) => [r.delivery, r.hiddenTest]),
    ]) {
      expect(deliverySchema.safeParse(d).success).toBe(true);
    }
  });

  it('grows with --tasks without changing the runs a smaller campaign already had', () => {
    const smaller = buildCampaign(source, { tasks: 10, seed: 7, hosts: ['demo-runner-1', 'demo-runner-2'] });
    const byId = new Map(campaign.runs.map((r) => [r.id, r]));
    expect(smaller.runs.length).toBeGreaterThan(50);
    for (const run of smaller.runs) expect(byId.get(run.id)?.delivery).toEqual(run.delivery);
    expect(smaller.issues).toEqual(campaign.issues.slice(0, 10));
  });

  it('writes a run whose source recorded no patch as a folder that says so, and replay-push sends it as null', async () => {
    const campaign = buildCampaign(source, { tasks: 1, seed: 7, hosts: ['mac-studio-1'] });
    const other = campaign.runs.find((r) => r.delivery.patch)!;
    const run = campaign.runs.find((r) => r !== other)!;
    const unrecorded = { ...campaign, runs: [{ ...run, delivery: { ...run.delivery, patch: null } }, other] };
    const [folder, recorded] = writeCampaignFolders(unrecorded, mkdtempSync(join(tmpdir(), 'demo-folders-')));
    expect(existsSync(join(folder!, 'candidate.diff'))).toBe(false);
    const prepared = prepareRun(await readRunFolder(folder!), { host: 'mac-studio-1' });
    expect(prepared.patch).toBeNull();
    expect(JSON.parse(buildRunDelivery(prepared).body)).toMatchObject({ patch: null });
    expect(prepareRun(await readRunFolder(recorded!), { host: 'mac-studio-1' }).patch).toBe(other.delivery.patch);
    // The stand-in judge is never asked about it, and still finds the run that has a patch.
    const prompt = buildPrompt(
      {
        issueText: 'issue',
        referenceDiff: 'diff',
        omittedLockFiles: [],
        candidateDiff: rebuiltDiff(other.delivery.patch as string),
        candidateTruncated: false,
        maxDiffChars: 100_000,
      },
      'ab12',
    );
    expect(demoRunFinder(unrecorded.runs)(prompt.sharedPrompt + prompt.prompt)).toBe(other);
  });

  it('counts what it took and what it generated, for the banner', () => {
    const { provenance } = campaign;
    expect(provenance.count('real', 'runs', 'hidden-test outcome')).toBe(campaign.runs.length);
    expect(provenance.count('generated', 'runs', 'patch and summary')).toBe(campaign.runs.length);
    expect(provenance.count('generated', 'tasks', 'issue and PR numbers')).toBe(20);
    expect(provenance.lines()[0]).toMatch(/^Real: repository and base commit \(20 tasks\); /);
  });

  it('keeps the real outcome and step count, and marks every row generated', () => {
    const key = (model: string, harnessVersion: string, taskId: string) => `${model}|${harnessVersion}|${taskId}`;
    const real = new Map(
      source.map((r) => {
        const { model, harnessVersion } = splitModelName(r.modelName);
        return [key(model, harnessVersion, r.instanceId), r];
      }),
    );
    expect(campaign.runs.length).toBeGreaterThan(200);
    for (const run of campaign.runs) {
      const row = run.delivery.row as {
        model: string;
        harnessVersion: string;
        taskId: string;
        steps: number;
        metricsSource: string;
      };
      const origin = real.get(key(row.model, row.harnessVersion, row.taskId))!;
      expect(row.steps).toBe(origin.turns);
      expect((run.hiddenTest.hiddenTestResult as { status: string }).status).toBe(origin.resolved ? 'pass' : 'fail');
      expect(row.metricsSource).toBe('generated');
    }
  });

  it('lets the stand-in judge find the run by the patch in its prompt, and disagree with the tests now and then', () => {
    const withPatch = campaign.runs.filter((r) => r.delivery.patch);
    const find = demoRunFinder(campaign.runs);
    const promptOf = (patch: string) =>
      buildPrompt(
        {
          issueText: 'issue',
          referenceDiff: 'diff',
          omittedLockFiles: [],
          candidateDiff: rebuiltDiff(patch),
          candidateTruncated: false,
          maxDiffChars: 100_000,
        },
        'ab12',
      );
    expect(
      withPatch.every((r) => {
        const { sharedPrompt, prompt } = promptOf(r.delivery.patch as string);
        return find(sharedPrompt + prompt) === r;
      }),
    ).toBe(true);
    const answers = withPatch.map((r) => ({ resolved: r.resolved, verdict: oracleAnswer(r).verdict }));
    const disagreements = answers.filter((a) => (a.verdict === 'resolved') !== a.resolved).length;
    expect(disagreements).toBeGreaterThan(0);
    expect(disagreements / answers.length).toBeLessThan(0.25);
  });
});
