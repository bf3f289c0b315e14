// Every field of a run row with its unit, grouped as the reader looks for them; unknown written as such.
import type { RunRow } from '#schema/run.ts';
import { el } from '../widgets/dom.ts';
import { counted, duration, instant, NO_PATCH_SHA256, num, UNKNOWN, withUnit } from '../widgets/format.ts';

type Field = keyof RunRow;

const FIELD_GROUPS: [string, Field[]][] = [
  ['Task', ['taskId', 'repo', 'issueNumber', 'tier', 'wave']],
  ['Model', ['model', 'modelFamily', 'parameters', 'activeParameters', 'quantization', 'runtime']],
  ['Machine', ['host', 'hostHardware', 'contextWindow', 'historyCharsKept']],
  ['Harness', ['harnessVersion', 'maxSteps', 'maxOutputTokensPerCall', 'wallBudgetSeconds']],
  ['Time', ['startedAt', 'finishedAt', 'wallSeconds', 'steps', 'outcome']],
  ['Tokens and cost', ['promptTokens', 'completionTokens', 'maxPromptTokensPerCall', 'costUsd']],
  [
    'Throughput',
    [
      'outputTokensPerMinute',
      'medianCallSeconds',
      'medianCallOutputTokensPerSecond',
      'medianStepSeconds',
      'promptTokensPerSecond',
      'generationTokensPerSecond',
    ],
  ],
  [
    'Work',
    [
      'bashCalls',
      'readCalls',
      'editCalls',
      'writeCalls',
      'dotnetCommands',
      'patchFilesChanged',
      'patchLinesAdded',
      'patchLinesRemoved',
    ],
  ],
  [
    'Judge',
    [
      'judgeState',
      'judgeModel',
      'judgedAt',
      'judgeAttempts',
      'judgeNextAttemptAt',
      'judgeRootCauseFound',
      'judgeSameFilesAsReference',
      'judgeSameFilesComputed',
      'judgeTestAdded',
      'judgeTestAddedComputed',
      'judgeWouldCompile',
    ],
  ],
  ['Pipeline', ['id', 'landedAt', 'updatedAt', 'patchTruncated', 'patchSha256', 'metricsSource']],
];

const seconds = (v: number) => (v < 90 ? withUnit(v, 's', 1) : `${duration(v)} (${withUnit(v, 's')})`);

/** Figures with their units; a field not listed is shown as it is. */
const UNITS: Partial<Record<Field, (v: number) => string>> = {
  issueNumber: (v) => `#${v}`,
  contextWindow: (v) => withUnit(v, 'tokens'),
  historyCharsKept: (v) => withUnit(v, 'characters'),
  maxSteps: (v) => counted(v, 'step'),
  maxOutputTokensPerCall: (v) => withUnit(v, 'tokens'),
  wallBudgetSeconds: seconds,
  wallSeconds: seconds,
  steps: (v) => counted(v, 'step'),
  promptTokens: (v) => withUnit(v, 'tokens'),
  completionTokens: (v) => withUnit(v, 'tokens'),
  maxPromptTokensPerCall: (v) => withUnit(v, 'tokens'),
  costUsd: (v) => `$${v.toFixed(v < 1 ? 4 : 2)}`,
  outputTokensPerMinute: (v) => withUnit(v, 'tokens/min', 1),
  medianCallSeconds: seconds,
  medianCallOutputTokensPerSecond: (v) => withUnit(v, 'tokens/s', 1),
  medianStepSeconds: seconds,
  promptTokensPerSecond: (v) => withUnit(v, 'tokens/s', 1),
  generationTokensPerSecond: (v) => withUnit(v, 'tokens/s', 1),
  bashCalls: (v) => counted(v, 'call'),
  readCalls: (v) => counted(v, 'call'),
  editCalls: (v) => counted(v, 'call'),
  writeCalls: (v) => counted(v, 'call'),
  dotnetCommands: (v) => counted(v, 'command'),
  patchFilesChanged: (v) => counted(v, 'file'),
  patchLinesAdded: (v) => counted(v, 'line'),
  patchLinesRemoved: (v) => counted(v, 'line'),
  judgeAttempts: (v) => counted(v, 'attempt'),
};

const INSTANTS = new Set<Field>(['startedAt', 'finishedAt', 'judgedAt', 'judgeNextAttemptAt', 'landedAt', 'updatedAt']);

/** `promptTokensPerSecond` → "Prompt tokens per second". */
const fieldLabel = (key: string) => {
  const words = key
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase()
    .trim();
  return words[0]!.toUpperCase() + words.slice(1);
};

function fieldText(key: Field, v: unknown): [string, boolean] {
  if (v === null || v === undefined) return [UNKNOWN, true];
  if (typeof v === 'number') return [UNITS[key]?.(v) ?? num(v, 2), false];
  if (typeof v === 'boolean') return [v ? 'yes' : 'no', false];
  if (typeof v === 'string' && INSTANTS.has(key)) return [instant(v), false];
  if (key === 'patchSha256' && v === NO_PATCH_SHA256) return [`${v} (no patch: the hash of nothing)`, false];
  if (typeof v === 'object') return [JSON.stringify(v), false];
  return [String(v), false];
}

export function fieldsTable(row: RunRow): HTMLElement {
  return el(
    'table',
    { class: 'fields' },
    ...FIELD_GROUPS.map(([group, keys]) =>
      el(
        'tbody',
        {},
        el('tr', {}, el('th', { colspan: 2, class: 'group', scope: 'colgroup' }, group)),
        ...keys.map((k) => {
          const [text, unknown] = fieldText(k, row[k]);
          return el(
            'tr',
            {},
            el('th', { scope: 'row', title: k }, fieldLabel(k)),
            el('td', { class: unknown ? 'unknown' : '' }, text),
          );
        }),
      ),
    ),
  );
}
