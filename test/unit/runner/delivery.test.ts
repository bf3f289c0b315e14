// Building deliveries (docs/contract.md §7): the summary cut to 64 KiB, the patch cut at a line boundary with a marker
// so the body fits 1 MiB exactly, and content keys that identify what the ledger has accepted.
import { describe, expect, it } from '@jest/globals';
import {
  buildHiddenTestDelivery,
  buildIssueDelivery,
  buildRunDelivery,
  cutToBytes,
  MAX_SUMMARY_BYTES,
  PATCH_CUT_MARKER,
} from '#runner/delivery.ts';
import type { PreparedRun } from '#runner/run-folder.ts';
import { MAX_DELIVERY_BYTES, deliverySchema } from '#schema/delivery.ts';
import { runnerRowSchema } from '#schema/run.ts';
import { sha256Hex } from '#shared/sha256.ts';
import { runnerRow } from '../../helpers/deliveries.ts';

const row = runnerRowSchema.parse(runnerRow());

function run(patch: string, summary = 'Changed a to b.'): PreparedRun {
  return {
    folder: '/runs/x',
    id: 'qwen3_8b__acme__widgets-42__h2',
    host: 'mac-studio-1',
    row,
    patch,
    summary,
    patchSha256: sha256Hex(patch),
    task: null,
    hiddenTest: null,
    warnings: [],
  };
}
const bodyBytes = (body: string) => Buffer.byteLength(body);
const sent = (body: string) => JSON.parse(body) as { patch: string; patchTruncated: boolean; summary: string };

const LINE = `${'x'.repeat(99)}\n`;
/** Bytes LINE takes in the body: its newline is escaped as two characters. */
const LINE_IN_BODY = 101;

/** A patch of LINEs and a tail of `y`s that makes the run's body exactly `target` bytes. */
function patchForBodyOf(target: number): string {
  const room = target - bodyBytes(buildRunDelivery(run('')).body);
  const lines = Math.floor(room / LINE_IN_BODY);
  return LINE.repeat(lines) + 'y'.repeat(room - lines * LINE_IN_BODY);
}

describe('run deliveries', () => {
  it('sends a patch whole when the body is exactly 1 MiB', () => {
    const patch = patchForBodyOf(MAX_DELIVERY_BYTES);
    const built = buildRunDelivery(run(patch));
    expect(bodyBytes(built.body)).toBe(MAX_DELIVERY_BYTES);
    expect(built.patchTruncated).toBe(false);
    expect(sent(built.body)).toMatchObject({ patch, patchTruncated: false });
  });

  it('cuts at a line boundary and marks it when the body would be one byte over', () => {
    const patch = `${patchForBodyOf(MAX_DELIVERY_BYTES)}y`;
    const built = buildRunDelivery(run(patch));
    const body = sent(built.body);
    expect(bodyBytes(built.body)).toBeLessThanOrEqual(MAX_DELIVERY_BYTES);
    expect(built.patchTruncated).toBe(true);
    expect(body.patchTruncated).toBe(true);
    expect(body.patch.endsWith(`\n${PATCH_CUT_MARKER}`)).toBe(true);
    const kept = body.patch.slice(0, -PATCH_CUT_MARKER.length);
    expect(patch.startsWith(kept)).toBe(true);
    expect(
      kept
        .split('\n')
        .slice(0, -1)
        .every((line) => line === 'x'.repeat(99)),
    ).toBe(true);
    // As many whole lines as fit: one more would not have.
    expect(bodyBytes(built.body) + LINE_IN_BODY).toBeGreaterThan(MAX_DELIVERY_BYTES);
  });

  it('cuts a 3 MiB patch of escaped and multi-byte text to a body within 1 MiB', () => {
    const line = 'const s = "naïve \\"quoted\\"\ttab"; // ✓ 完成\n';
    const patch = line.repeat(Math.ceil((3 * MAX_DELIVERY_BYTES) / Buffer.byteLength(line)));
    const built = buildRunDelivery(run(patch));
    expect(bodyBytes(built.body)).toBeLessThanOrEqual(MAX_DELIVERY_BYTES);
    expect(bodyBytes(built.body)).toBeGreaterThan(MAX_DELIVERY_BYTES - 2 * Buffer.byteLength(JSON.stringify(line)));
    const body = sent(built.body);
    expect(body.patchTruncated).toBe(true);
    expect(
      body.patch
        .slice(0, -PATCH_CUT_MARKER.length)
        .split('\n')
        .slice(0, -1)
        .every((l) => `${l}\n` === line),
    ).toBe(true);
    expect(deliverySchema.safeParse(JSON.parse(built.body)).success).toBe(true);
  });

  it('cuts the summary to 64 KiB without splitting a character', () => {
    const built = buildRunDelivery(run('', 'é'.repeat(MAX_SUMMARY_BYTES)));
    const { summary } = sent(built.body);
    expect(Buffer.byteLength(summary)).toBe(MAX_SUMMARY_BYTES);
    expect(summary).toBe('é'.repeat(MAX_SUMMARY_BYTES / 2));
    expect(cutToBytes('a✓', 3)).toBe('a');
  });

  it('identifies a run by id, finishedAt and the hash of the patch as written, cut or not', () => {
    const big = 'z'.repeat(100) + '\n';
    const a = buildRunDelivery(run(big.repeat(20_000)));
    const b = buildRunDelivery(run(big.repeat(20_001)));
    expect(sent(a.body).patch).toBe(sent(b.body).patch);
    expect(a.contentKey).not.toBe(b.contentKey);
    expect(a.contentKey).toBe(
      `run ${row.model.replace(':', '_')}__acme__widgets-42__h2 ${row.finishedAt} ${sha256Hex(big.repeat(20_000))}`,
    );
  });
});

describe('issue and hidden-test deliveries', () => {
  it('sends the issue record and keys it by task and content', () => {
    const issue = {
      taskId: 't-1',
      order: 1,
      repo: 'acme/widgets',
      issueNumber: 7,
      fixPrNumber: null,
      tier: null,
      wave: null,
      codeLinesChanged: null,
      codeFilesChanged: null,
      filesChanged: null,
      linesAdded: null,
      linesRemoved: null,
      fixHasTests: null,
      originalFixModel: null,
      commits: null,
      issueToMergeHours: null,
      prToMergeHours: null,
      mergedAt: null,
      baseSha: null,
      mergeSha: null,
    };
    const sentAt = new Date('2026-11-29T08:00:00.123Z');
    const built = buildIssueDelivery(issue, 'mac-studio-1', sentAt);
    expect(JSON.parse(built.body)).toEqual({
      kind: 'issue',
      host: 'mac-studio-1',
      sentAt: '2026-11-29T08:00:00.123Z',
      issue,
    });
    expect(buildIssueDelivery({ ...issue, wave: 2 }, 'mac-studio-1').contentKey).not.toBe(built.contentKey);
    // Sent again later, the same content is the same delivery for the ledger.
    expect(buildIssueDelivery(issue, 'mac-studio-1', new Date()).contentKey).toBe(built.contentKey);
  });

  it('sends a hidden-test result for the run and finishedAt, after that run', () => {
    const prepared = run('p');
    const built = buildHiddenTestDelivery(prepared, {
      status: 'fail',
      passed: 1,
      failed: 2,
      total: 3,
      ranAt: '2026-11-21T09:00:00.000Z',
    });
    expect(JSON.parse(built.body)).toMatchObject({
      kind: 'hidden-test',
      id: prepared.id,
      finishedAt: row.finishedAt,
      hiddenTestResult: { status: 'fail' },
    });
    expect(built.after).toBe(buildRunDelivery(prepared).contentKey);
  });
});
