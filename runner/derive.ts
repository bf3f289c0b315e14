// Row derivation (docs/contract.md §7): the runner fields a run folder implies, as pure functions of its parsed files.
// Unknown stays unknown: a figure without data is null, a ratio over zero is null, and a token sum is null
// unless every model call gives that count. Values are not rounded.
import type { IssueRecord } from '#schema/issue.ts';
import type { ModelCallEvent, ToolCallEvent, TrajectoryEvent } from '#schema/run-folder.ts';

export interface DerivedFigures {
  wallSeconds: number;
  steps: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  maxPromptTokensPerCall: number | null;
  outputTokensPerMinute: number | null;
  medianCallSeconds: number | null;
  medianCallOutputTokensPerSecond: number | null;
  medianStepSeconds: number | null;
  promptTokensPerSecond: number | null;
  generationTokensPerSecond: number | null;
  bashCalls: number | null;
  readCalls: number | null;
  editCalls: number | null;
  writeCalls: number | null;
  dotnetCommands: number | null;
  patchFilesChanged: number | null;
  patchLinesAdded: number | null;
  patchLinesRemoved: number | null;
  metricsSource: 'trajectory' | 'result-only';
}

const seconds = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 1000;

/** Median; of an even count, the mean of the two middle values; null for no values. */
export function median(values: number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const ratio = (numerator: number | null, denominator: number | null) =>
  numerator === null || denominator === null || denominator === 0 ? null : numerator / denominator;

/** Completion tokens per minute of wall time: null unless both are known and the time is not zero. */
export const outputTokensPerMinute = (completionTokens: number | null, wallSeconds: number | null) =>
  ratio(completionTokens === null ? null : completionTokens * 60, wallSeconds);

/** Sum of a count over model calls: null when there are none, or when any call does not give it. */
function sumOfEvery(calls: ModelCallEvent[], field: 'promptTokens' | 'completionTokens'): number | null {
  if (!calls.length || calls.some((c) => c[field] === undefined)) return null;
  return calls.reduce((sum, c) => sum + c[field]!, 0);
}

/** Σ tokens / Σ seconds over the calls that give both: prompt processing or generation speed. */
function rateOver(
  calls: ModelCallEvent[],
  tokens: 'promptTokens' | 'completionTokens',
  time: 'promptSeconds' | 'generationSeconds',
): number | null {
  const giving = calls.filter((c) => c[tokens] !== undefined && c[time] !== undefined);
  if (!giving.length) return null;
  return ratio(
    giving.reduce((s, c) => s + c[tokens]!, 0),
    giving.reduce((s, c) => s + c[time]!, 0),
  );
}

/** Whether some simple command of a shell line (split on `&&`, `||`, `;`, `|`, newlines) runs `dotnet`. */
export function runsDotnet(command: string): boolean {
  return command.split(/&&|\|\||[;|\n]/).some((simple) => {
    const words = simple
      .trim()
      .replace(/^[({\s]+/, '')
      .split(/\s+/);
    // Leading variable assignments (`DOTNET_CLI_TELEMETRY_OPTOUT=1 dotnet test`) are not the program.
    const program = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) ?? '';
    return program.replace(/^.*\//, '') === 'dotnet';
  });
}

/** Files and lines of a unified diff: `diff --git` sections, `+`/`-` lines that are not `+++`/`---`. */
export function patchCounts(patch: string): {
  patchFilesChanged: number;
  patchLinesAdded: number;
  patchLinesRemoved: number;
} {
  let patchFilesChanged = 0;
  let patchLinesAdded = 0;
  let patchLinesRemoved = 0;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git')) patchFilesChanged++;
    else if (line.startsWith('+') && !line.startsWith('+++')) patchLinesAdded++;
    else if (line.startsWith('-') && !line.startsWith('---')) patchLinesRemoved++;
  }
  return { patchFilesChanged, patchLinesAdded, patchLinesRemoved };
}

function trajectoryFigures(events: TrajectoryEvent[], wallSeconds: number) {
  const calls = events.filter((e): e is ModelCallEvent => e.type === 'model-call');
  const tools = events.filter((e): e is ToolCallEvent => e.type === 'tool-call');
  // A call right after a shell command also waits for the shell's output to be read in: not model speed.
  const unhindered = events.filter((e, i): e is ModelCallEvent => {
    const previous = events[i - 1];
    return e.type === 'model-call' && !(previous?.type === 'tool-call' && previous.tool === 'bash');
  });
  const stepSpans = new Map<number, { start: number; end: number }>();
  for (const e of events) {
    const span = stepSpans.get(e.step);
    const start = Date.parse(e.startedAt);
    const end = Date.parse(e.endedAt);
    stepSpans.set(e.step, span ? { start: Math.min(span.start, start), end: Math.max(span.end, end) } : { start, end });
  }
  const completionTokens = sumOfEvery(calls, 'completionTokens');
  const byTool = (tool: string) => tools.filter((t) => t.tool === tool).length;
  return {
    steps: new Set(calls.map((c) => c.step)).size,
    promptTokens: sumOfEvery(calls, 'promptTokens'),
    completionTokens,
    maxPromptTokensPerCall:
      calls.length && calls.every((c) => c.promptTokens !== undefined)
        ? Math.max(...calls.map((c) => c.promptTokens!))
        : null,
    outputTokensPerMinute: outputTokensPerMinute(completionTokens, wallSeconds),
    medianCallSeconds: median(unhindered.map((c) => seconds(c.startedAt, c.endedAt))),
    medianCallOutputTokensPerSecond: median(
      unhindered
        .map((c) => ratio(c.completionTokens ?? null, seconds(c.startedAt, c.endedAt)))
        .filter((r): r is number => r !== null),
    ),
    medianStepSeconds: median([...stepSpans.values()].map((s) => (s.end - s.start) / 1000)),
    promptTokensPerSecond: rateOver(calls, 'promptTokens', 'promptSeconds'),
    generationTokensPerSecond: rateOver(calls, 'completionTokens', 'generationSeconds'),
    bashCalls: byTool('bash'),
    readCalls: byTool('read'),
    editCalls: byTool('edit'),
    writeCalls: byTool('write'),
    dotnetCommands: tools.filter((t) => t.tool === 'bash' && t.command !== undefined && runsDotnet(t.command)).length,
  };
}

const NO_TRAJECTORY = {
  steps: null,
  promptTokens: null,
  completionTokens: null,
  maxPromptTokensPerCall: null,
  outputTokensPerMinute: null,
  medianCallSeconds: null,
  medianCallOutputTokensPerSecond: null,
  medianStepSeconds: null,
  promptTokensPerSecond: null,
  generationTokensPerSecond: null,
  bashCalls: null,
  readCalls: null,
  editCalls: null,
  writeCalls: null,
  dotnetCommands: null,
};

/**
 * The measured figures a folder may derive. One that `result.json` gives as null stays null (the harness says it
 * was not measured: an imported run without per-call times must not get a wall time or a throughput of zero).
 */
export const MEASURED_FIGURES = ['wallSeconds', ...Object.keys(NO_TRAJECTORY)] as (keyof DerivedFigures)[];

/**
 * The figures a folder gives: from the times in `result.json`, the trajectory (when there is one) and the diff
 * (none when the source recorded no patch: its counts are unknown, not zero).
 */
export function deriveFigures(
  times: { startedAt: string; finishedAt: string },
  events: TrajectoryEvent[] | null,
  patch: string | null,
): DerivedFigures {
  const wallSeconds = seconds(times.startedAt, times.finishedAt);
  return {
    wallSeconds,
    ...(events ? trajectoryFigures(events, wallSeconds) : NO_TRAJECTORY),
    ...(patch === null
      ? { patchFilesChanged: null, patchLinesAdded: null, patchLinesRemoved: null }
      : patchCounts(patch)),
    metricsSource: events ? 'trajectory' : 'result-only',
  };
}

/** Task fields the row takes from `task.json` when `result.json` lacks them. */
export const taskFields = (task: IssueRecord | null) =>
  task ? { repo: task.repo, issueNumber: task.issueNumber, tier: task.tier, wave: task.wave } : {};

/** Derived values first, then the task's, then what `result.json` gives (a given value wins; null is not a value). */
export function mergeRow(...layers: Record<string, unknown>[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) if (value !== null && value !== undefined) row[key] = value;
  }
  return row;
}
