// A run's patch and summary, stored as one object: the lander puts it once, and the judge, which reads both,
// gets it once (S3 bills each request, and these two were the run's largest share of them). The object is JSON,
// named by the sha256 of its bytes under the run's finishedAt, so landing stays create-only and idempotent.
// Runs landed before keep two objects (`patchKey`, `summaryKey`) and are read as they are, without a migration.
import * as z from '#schema/zod.ts';
import type { RunRow } from '#schema/run.ts';
import { sha256Hex } from '#shared/sha256.ts';
import type { ObjectStore } from './ports.ts';
import { runTextsKey } from './storage-layout.ts';

export interface RunTexts {
  patch: string | null;
  summary: string | null;
}

const storedTextsSchema = z.object({ patch: z.nullable(z.string()), summary: z.string() });

/** The object a landing puts: its key and its bytes. */
export function runTextsObject(
  space: string,
  id: string,
  finishedAt: string,
  texts: { patch: string | null; summary: string },
): { key: string; body: string } {
  const body = JSON.stringify({ patch: texts.patch, summary: texts.summary });
  return { key: runTextsKey(space, id, finishedAt, sha256Hex(body)), body };
}

/**
 * The run's patch and summary, null where none is stored: one GET for a run landed with `textsKey`; for one
 * landed before, a GET per object, only of the one asked for when `only` names it.
 */
export async function readRunTexts(
  objects: Pick<ObjectStore, 'getText'>,
  row: Pick<RunRow, 'textsKey' | 'patchKey' | 'summaryKey'>,
  only?: keyof RunTexts,
): Promise<RunTexts> {
  if (row.textsKey) {
    const text = await objects.getText(row.textsKey);
    return text === null ? { patch: null, summary: null } : storedTextsSchema.parse(JSON.parse(text));
  }
  const read = (key: string | null, which: keyof RunTexts) =>
    key && (only === undefined || only === which) ? objects.getText(key) : null;
  const [patch, summary] = await Promise.all([read(row.patchKey, 'patch'), read(row.summaryKey, 'summary')]);
  return { patch, summary };
}
