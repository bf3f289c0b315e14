// The archive's attempts as the counts and `/attempts` read them (docs/contract.md §4): each attempt once.
import { describe, expect, it } from '@jest/globals';
import { distinctAttempts, type ArchivedAttempt } from '#schema/attempt.ts';
import { runRow } from '../../../helpers/records.ts';

const attempt = (host: string, finishedAt: string, marks: Partial<ArchivedAttempt> = {}): ArchivedAttempt => ({
  ...runRow({ host, finishedAt }),
  archivedAt: '2026-11-29T12:00:00.000Z',
  ...marks,
});

describe('distinctAttempts', () => {
  it("keeps a reassigned attempt once, as the row it was (with its verdict), in the archive's order", () => {
    const foreignCopy = attempt('mac-studio-1', '2026-11-21T00:00:00.000Z', { foreign: true });
    const rowCopy = { ...foreignCopy, foreign: undefined, judgeVerdict: 'resolved' as const };
    const earlier = attempt('mac-studio-1', '2026-11-20T00:00:00.000Z', { foreign: true });
    const squatter = attempt('mac-mini-2', '2026-11-21T00:00:00.000Z');
    expect(distinctAttempts([foreignCopy, earlier, rowCopy, squatter])).toEqual([earlier, rowCopy, squatter]);
    expect(distinctAttempts([rowCopy, foreignCopy])).toEqual([rowCopy]);
  });

  it('keeps every collision, and attempts that differ in host, finishedAt or patch', () => {
    const a = attempt('mac-studio-1', '2026-11-21T00:00:00.000Z');
    const collision = { ...a, collision: true, model: 'qwen3_8b' };
    const otherPatch = { ...a, patchSha256: 'f'.repeat(64) };
    const list = [a, collision, { ...collision }, otherPatch, { ...a, host: 'mac-mini-2' }];
    expect(distinctAttempts(list)).toEqual(list);
  });
});
