// Row derivation from a run folder (docs/contract.md §7), checked against the annotated example folder whose every
// figure was worked out by hand (docs/runner.md walks through the same numbers).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { deriveFigures, median, patchCounts, runsDotnet } from '#runner/derive.ts';
import { parseTrajectory, prepareRun, readRunFolder } from '#runner/run-folder.ts';
import type { TrajectoryEvent } from '#schema/run-folder.ts';

const EXAMPLE = join(import.meta.dirname, '../../fixtures/runs/qwen3-8b__acme__widgets-42__h2');
const MAC_CONTEXT = { runsRoot: '/Users/runner/replay/runs', forbid: ['/Users/runner/replay/harness'] };

function copyOfExample(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'replay-derive-')), 'run');
  cpSync(EXAMPLE, dir, { recursive: true });
  return dir;
}

const call = (step: number, from: number, to: number, extra: Partial<TrajectoryEvent> = {}): TrajectoryEvent =>
  ({
    type: 'model-call',
    step,
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, from)).toISOString(),
    endedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, to)).toISOString(),
    ...extra,
  }) as TrajectoryEvent;
const tool = (step: number, from: number, to: number, tool: string, command?: string): TrajectoryEvent => ({
  type: 'tool-call',
  step,
  tool,
  ...(command ? { command } : {}),
  startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, from)).toISOString(),
  endedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, to)).toISOString(),
});
const TIMES = { startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:00.000Z' };

describe('deriving a run row from the example folder', () => {
  it('gives every figure worked out by hand', async () => {
    const run = prepareRun(await readRunFolder(EXAMPLE), MAC_CONTEXT);
    expect(run.id).toBe('qwen3_8b__acme__widgets-42__h2');
    expect(run.warnings).toEqual([]);
    expect(run.row).toMatchObject({
      // from task.json, which result.json does not override
      repo: 'acme/widgets',
      issueNumber: 42,
      tier: 'easy',
      wave: 1,
      // given by result.json
      model: 'qwen3:8b',
      host: 'mac-studio-1',
      contextWindow: 32768,
      wallBudgetSeconds: 1800,
      outcome: 'finished',
      // derived
      wallSeconds: 120,
      steps: 6,
      promptTokens: 13300,
      completionTokens: 716,
      maxPromptTokensPerCall: 3200,
      outputTokensPerMinute: 358,
      // calls of steps 1, 2, 4, 6 (3 and 5 follow a bash call; the ignored "note" event is invisible):
      // 4, 6, 8, 10 s → (6 + 8) / 2; 24, 20, 25, 5 tokens/s → (20 + 24) / 2
      medianCallSeconds: 7,
      medianCallOutputTokensPerSecond: 22,
      // step spans 5, 15, 11, 29, 12, 10 s → (11 + 12) / 2
      medianStepSeconds: 11.5,
      promptTokensPerSecond: 13300 / 14,
      generationTokensPerSecond: 716 / 25,
      bashCalls: 3,
      readCalls: 1,
      editCalls: 1,
      writeCalls: 1,
      dotnetCommands: 2,
      patchFilesChanged: 2,
      patchLinesAdded: 3,
      patchLinesRemoved: 1,
      metricsSource: 'trajectory',
    });
    expect(run.row.contamination).toEqual([
      {
        step: 4,
        path: '/Users/runner/replay/runs/qwen3-8b__acme__widgets-41__h2',
        reason: "inside the runs root, outside this run's own folder",
      },
      { step: 4, path: '/Users/runner/replay/harness/prompts/system.md', reason: 'at or under a forbidden root' },
    ]);
    expect(run.task?.taskId).toBe('acme__widgets-42');
    expect(run.hiddenTest).toMatchObject({ status: 'pass', passed: 12 });
  });

  it('leaves trajectory figures null and says "result-only" when there is no trajectory', async () => {
    const dir = copyOfExample();
    rmSync(join(dir, 'trajectory.jsonl'));
    const { row } = prepareRun(await readRunFolder(dir), MAC_CONTEXT);
    expect(row).toMatchObject({
      metricsSource: 'result-only',
      wallSeconds: 120,
      steps: null,
      promptTokens: null,
      bashCalls: null,
      dotnetCommands: null,
      medianStepSeconds: null,
      contamination: [],
      patchLinesAdded: 3,
    });
  });

  it('lets a value given in result.json win over the derived one', async () => {
    const dir = copyOfExample();
    const result = JSON.parse(readFileSync(join(EXAMPLE, 'result.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(
      join(dir, 'result.json'),
      JSON.stringify({ ...result, steps: 99, tier: 'hard', contamination: [], metricsSource: 'generated' }),
    );
    const { row } = prepareRun(await readRunFolder(dir), MAC_CONTEXT);
    expect(row).toMatchObject({
      steps: 99,
      tier: 'hard',
      contamination: [],
      metricsSource: 'generated',
      promptTokens: 13300,
    });
  });
  it('keeps a measured figure result.json gives as null null, where it would be derived, and a task field from task.json', async () => {
    const dir = copyOfExample();
    const result = JSON.parse(readFileSync(join(EXAMPLE, 'result.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(
      join(dir, 'result.json'),
      JSON.stringify({ ...result, wallSeconds: null, promptTokens: null, bashCalls: null, repo: null }),
    );
    const { row } = prepareRun(await readRunFolder(dir), MAC_CONTEXT);
    expect(row).toMatchObject({ wallSeconds: null, promptTokens: null, bashCalls: null });
    // Given figures stay derived where result.json says nothing of them; a null task field is no figure.
    expect(row.completionTokens).toBe(
      prepareRun(await readRunFolder(copyOfExample()), MAC_CONTEXT).row.completionTokens,
    );
    expect(row.repo).toBe('acme/widgets');
  });

  it('sends a null patch with unknown counts when result.json says no patch was recorded, and refuses a folder that holds one', async () => {
    const dir = copyOfExample();
    const result = JSON.parse(readFileSync(join(EXAMPLE, 'result.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'result.json'), JSON.stringify({ ...result, patchRecorded: false }));
    await expect(readRunFolder(dir)).rejects.toThrow(
      /candidate\.diff: holds a patch, but result\.json says "patchRecorded": false/,
    );
    rmSync(join(dir, 'candidate.diff'));
    const run = prepareRun(await readRunFolder(dir), MAC_CONTEXT);
    expect(run.patch).toBeNull();
    expect(run.row).toMatchObject({ patchFilesChanged: null, patchLinesAdded: null, patchLinesRemoved: null });
    // Without the flag a missing candidate.diff is an empty patch, as before: the run changed nothing.
    writeFileSync(join(dir, 'result.json'), JSON.stringify(result));
    expect(prepareRun(await readRunFolder(dir), MAC_CONTEXT)).toMatchObject({
      patch: '',
      row: { patchFilesChanged: 0 },
    });
  });
});

describe('derivation rules', () => {
  it('takes the mean of the two middle values as the median of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([5, 1, 3])).toBe(3);
    expect(median([])).toBeNull();
  });

  it('leaves out of the call medians every model call preceded by a bash call, but not one preceded by another tool', () => {
    const events = [
      call(1, 0, 2, { completionTokens: 20 }),
      tool(1, 2, 3, 'bash'),
      call(2, 3, 13, { completionTokens: 10 }),
      tool(2, 13, 14, 'read'),
      call(3, 14, 18, { completionTokens: 40 }),
    ];
    const figures = deriveFigures(TIMES, events, '');
    expect(figures.medianCallSeconds).toBe(3); // 2 s and 4 s; the 10 s call after bash is left out
    expect(figures.medianCallOutputTokensPerSecond).toBe(10); // 10 and 10 tokens/s
  });

  it('makes a token sum null unless every call gives it, and a ratio over zero seconds null', () => {
    const figures = deriveFigures(
      TIMES,
      [call(1, 0, 0, { promptTokens: 5, completionTokens: 3 }), call(2, 1, 1, { completionTokens: 4 })],
      '',
    );
    expect(figures.promptTokens).toBeNull();
    expect(figures.maxPromptTokensPerCall).toBeNull();
    expect(figures.completionTokens).toBe(7);
    expect(figures.medianCallSeconds).toBe(0);
    expect(figures.medianCallOutputTokensPerSecond).toBeNull();
    expect(figures.promptTokensPerSecond).toBeNull();
    expect(
      deriveFigures({ ...TIMES, finishedAt: TIMES.startedAt }, [call(1, 0, 1, { completionTokens: 4 })], '')
        .outputTokensPerMinute,
    ).toBeNull();
  });

  it('counts tools as 0, not null, when a trajectory exists, and steps by distinct model-call steps', () => {
    const figures = deriveFigures(TIMES, [call(1, 0, 1), call(1, 1, 2), tool(2, 2, 3, 'bash', 'ls')], '');
    expect(figures).toMatchObject({
      steps: 1,
      bashCalls: 1,
      readCalls: 0,
      editCalls: 0,
      writeCalls: 0,
      dotnetCommands: 0,
      promptTokens: null,
    });
  });

  it('finds dotnet as the program of any simple command, and nowhere else', () => {
    expect(runsDotnet('dotnet test')).toBe(true);
    expect(runsDotnet('cd src && dotnet build -c Release')).toBe(true);
    expect(runsDotnet('false || /usr/local/share/dotnet/dotnet --info')).toBe(true);
    expect(runsDotnet('cat log.txt | DOTNET_NOLOGO=1 dotnet format; echo done')).toBe(true);
    expect(runsDotnet('(dotnet restore)')).toBe(true);
    expect(runsDotnet('echo dotnet')).toBe(false);
    expect(runsDotnet('dotnet-format .')).toBe(false);
    expect(runsDotnet('ls ~/.dotnet')).toBe(false);
  });

  it('counts diff sections and +/- lines but not the +++/--- headers', () => {
    const patch =
      'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-old\n+new\n+more\n context\ndiff --git a/y b/y\n--- a/y\n+++ b/y\n-gone\n';
    expect(patchCounts(patch)).toEqual({ patchFilesChanged: 2, patchLinesAdded: 2, patchLinesRemoved: 2 });
    expect(patchCounts('')).toEqual({ patchFilesChanged: 0, patchLinesAdded: 0, patchLinesRemoved: 0 });
  });
});

describe('reading a trajectory', () => {
  const good = '{"type":"model-call","step":1,"startedAt":"2026-01-01T00:00:00Z","endedAt":"2026-01-01T00:00:01Z"}';

  it('skips a cut-short last line with a warning', () => {
    const { events, warnings } = parseTrajectory(`${good}\n{"type":"model-ca`, 't.jsonl');
    expect(events).toHaveLength(1);
    expect(warnings).toEqual(['t.jsonl: line 2 is cut short (no newline after it) and was skipped.']);
  });

  it('refuses any other malformed line, naming its number', () => {
    expect(() => parseTrajectory(`${good}\nnot json\n${good}\n`, 't.jsonl')).toThrow(
      't.jsonl: line 2 is not valid JSON.',
    );
    expect(() => parseTrajectory(`${good}\n{"type":"model-call","step":-1}\n`, 't.jsonl')).toThrow(
      /t\.jsonl: line 2: step: /,
    );
  });

  it('ignores unknown event types and keys', () => {
    const { events } = parseTrajectory(
      `{"type":"thought","text":"x"}\n${good.replace('}', ',"extra":1}')}\n`,
      't.jsonl',
    );
    expect(events).toEqual([
      { type: 'model-call', step: 1, startedAt: '2026-01-01T00:00:00.000Z', endedAt: '2026-01-01T00:00:01.000Z' },
    ]);
  });
});
