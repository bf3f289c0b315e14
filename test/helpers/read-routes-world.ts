// The read routes' test world over HTTP: local mode with two spaces of runs landed by the real landing rules
// and judged as the judge writes them, and a `get` that reads an answer back. Each suite adds its own spaces.
import { afterAll, beforeAll, expect } from '@jest/globals';
import { judged } from '../../bench/direct-load.ts';
import type { RunRow } from '#schema/run.ts';
import { startTestLocalMode, type TestLocalMode } from './local-mode.ts';
import { runRow, storedIssue } from './records.ts';

export const SPACE = 'Reads';
/** Two models on twelve tasks: enough pairs to compare. */
export const PAIRS = 'Pairs';
/** A model name with a comma (why filters are read from the raw query) and one a spreadsheet would run. */
export const COMMA = 'acme/coder, large';
export const FORMULA = '=HYPERLINK("evil.example","x")';
const AT = '2026-03-01T00:00:00.000Z';

type Verdict = 'resolved' | 'wrong';
export function run(
  space: string,
  model: string,
  taskId: string,
  verdict: Verdict | null,
  hidden: 'pass' | 'fail' | null,
  tokens: [number, number] | null = [2_000_000, 100_000],
): RunRow {
  // Landed now, as landing would stamp it: the read side's deltas go by updatedAt.
  const now = new Date().toISOString();
  const row = runRow(
    {
      model,
      taskId,
      harnessVersion: 'h1',
      tier: 'easy',
      wave: 1,
      startedAt: AT,
      finishedAt: AT,
      promptTokens: tokens?.[0] ?? null,
      completionTokens: tokens?.[1] ?? null,
    },
    { space, updatedAt: now },
    hidden ? { status: hidden, ranAt: AT } : undefined,
  );
  return verdict
    ? judged(
        row,
        {
          verdict,
          rootCauseFound: true,
          sameFilesAsReference: true,
          testAdded: false,
          wouldCompile: true,
          reason: 'r',
        },
        'demo-oracle',
        now,
      )
    : row;
}

async function seed(local: TestLocalMode): Promise<void> {
  // COMMA resolves t1–t4, FORMULA resolves t1, t2 and t5; both ran t1–t6. A third model ran only t7.
  const comma: [string, Verdict, 'pass' | 'fail'][] = [
    ['t1', 'resolved', 'pass'],
    ['t2', 'resolved', 'pass'],
    ['t3', 'resolved', 'fail'],
    ['t4', 'resolved', 'pass'],
    ['t5', 'wrong', 'pass'],
    ['t6', 'wrong', 'fail'],
  ];
  const formula: [string, Verdict][] = [
    ['t1', 'resolved'],
    ['t2', 'resolved'],
    ['t3', 'wrong'],
    ['t4', 'wrong'],
    ['t5', 'resolved'],
    ['t6', 'wrong'],
  ];
  // Judge spend: a cent per COMMA run; one FORMULA run judged at a price nobody configured (unknown).
  const rows = [
    ...comma.map(([t, v, h]) => ({ ...run(SPACE, COMMA, t, v, h), judgeCostUsd: 0.01 })),
    ...formula.map(([t, v]) => ({ ...run(SPACE, FORMULA, t, v, null, null), judgeCostUsd: t === 't6' ? null : 0.01 })),
    run(SPACE, 'solo', 't7', 'resolved', 'pass'),
    run(SPACE, 'solo', 't8', null, null),
  ];
  // A run that does not say its tier or wave: its task's issue record does.
  const tierless = run(SPACE, 'tierless', 't9', 'wrong', null);
  rows.push({ ...tierless, tier: null, wave: null });
  // Stamped now, as landing stamps records: a backdated one could fall before a snapshot the compactor already took.
  await local.adapters.table.putIssue(
    storedIssue(
      { taskId: 't9', order: 9, issueNumber: 9, fixPrNumber: null, tier: 'hard', wave: 2 },
      { space: SPACE, updatedAt: new Date().toISOString() },
    ),
  );
  // left passes p1–p8 and is judged resolved on p1–p7; right passes p1–p4 and p9 and is judged resolved on p1–p4.
  for (let t = 1; t <= 12; t++) {
    rows.push(run(PAIRS, 'left', `p${t}`, t <= 7 ? 'resolved' : 'wrong', t <= 8 ? 'pass' : 'fail'));
    rows.push(run(PAIRS, 'right', `p${t}`, t <= 4 ? 'resolved' : 'wrong', t <= 4 || t === 9 ? 'pass' : 'fail'));
  }
  for (const row of rows) await local.adapters.table.putRun(row, null);
}

/**
 * SPACE and PAIRS seeded, with `spaces` configured beside them for the suite to seed in a later `beforeAll`.
 * Starts before the file's tests and stops after them.
 */
export function readRoutesWorld(spaces: Record<string, unknown> = {}) {
  let local: TestLocalMode;
  beforeAll(async () => {
    local = await startTestLocalMode(
      {
        spaces: { [SPACE]: { senders: ['mac-studio-1'] }, [PAIRS]: { senders: ['mac-studio-1'] }, ...spaces },
        prices: { [COMMA]: { inputPerMTok: 1, outputPerMTok: 10 } },
      },
      {},
      { sweepIntervalSeconds: 3600 },
    );
    await seed(local);
  });
  afterAll(async () => {
    await local?.stop();
  });

  async function get<T>(path: string): Promise<{ status: number; body: T; text: string; headers: Headers }> {
    const response = await fetch(`${local.url}/api${path}`);
    const text = await response.text();
    expect(text).not.toMatch(/NaN|Infinity/);
    return {
      status: response.status,
      body: (response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T,
      text,
      headers: response.headers,
    };
  }

  return { get, local: () => local };
}
