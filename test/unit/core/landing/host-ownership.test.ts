// One host, its own data (docs/contract.md §3 check 7, §4): the rules at ingest and at landing, against in-memory
// ports. A run belongs to the host whose row it is; another host's run of its id is kept apart as a foreign attempt,
// with that host's hidden-test results, so no sender can make another's run vanish or be refused for ever. A task's
// issue record belongs to the first publisher that sent it, among the space's `issuePublishers`.
import { describe, expect, it } from '@jest/globals';
import { landingCase } from '#core/landing/decide.ts';
import { reassignRun } from '#core/landing/reassign.ts';
import type { ArchivedAttempt } from '#schema/attempt.ts';
import { parseConfig } from '#schema/config.ts';
import { runnerRowSchema } from '#schema/run.ts';
import { hiddenTestDelivery, issueDelivery, runDelivery } from '../../../helpers/deliveries.ts';
import { ingestLandingWorld as world, MINI, NOW, PRO, STUDIO } from '../../../helpers/ingest-landing-world.ts';
import { runRow } from '../../../helpers/records.ts';

const F = '2026-11-20T10:12:00.000Z';

const notOwner = { status: 403, body: { signature: 'verified', error: 'not-owner' } };

/** What `reassignRun` reads and writes in a world, its attempts through `attempts` when given. */
const reassignDeps = (
  w: ReturnType<typeof world>,
  attempts: Pick<ReturnType<typeof world>['table'], 'listAttempts' | 'archiveAttempt'> = w.table,
) => ({ config: w.config, runs: w.table, attempts, objects: w.objects, clock: { now: () => new Date(NOW) } });

describe('at ingest', () => {
  it("accepts another host's run and hidden-test result for a landed run: nothing of a sender is refused for ever", async () => {
    const w = world();
    const run = runDelivery();
    await w.land(run);
    expect((await w.send(runDelivery({ host: MINI, finishedAt: '2026-11-21T00:00:00Z' }))).status).toBe(202);
    expect((await w.send(hiddenTestDelivery(run.id, F, 'fail', MINI))).status).toBe(202);
    expect(await w.inbox.list('inbox/')).toHaveLength(2);
  });

  it('lets the first host to publish a task own its issue record, and refuses every other host', async () => {
    const w = world();
    expect((await w.send(issueDelivery({ mergeSha: 'c'.repeat(40) }, MINI))).status).toBe(202);
    expect(await w.send(issueDelivery({}, STUDIO))).toMatchObject(notOwner);
    expect((await w.send(issueDelivery({ wave: 2 }, MINI))).status).toBe(202);
    expect((await w.send(issueDelivery({ taskId: 'other-task' }, STUDIO))).status).toBe(202);
    expect(await w.inbox.list('inbox/')).toHaveLength(3);
  });

  it("takes issue records only from a space's issuePublishers when it lists them", async () => {
    const w = world({ issuePublishers: [PRO] });
    const refused = await w.send(issueDelivery({}, STUDIO));
    expect(refused).toMatchObject(notOwner);
    expect((refused.body as { message: string }).message).toMatch(/only from "mac-pro-3"/);
    expect((await w.send(issueDelivery({}, PRO))).status).toBe(202);
  });

  it('refuses a configuration whose issuePublishers are not senders', () => {
    expect(() => parseConfig({ spaces: { S: { senders: [STUDIO], issuePublishers: [MINI] } } })).toThrow(
      /spaces\.S\.issuePublishers: names "mac-mini-2", which the space's "senders" does not list/,
    );
  });
});

describe('at landing', () => {
  it('records which host published an issue record', async () => {
    const w = world();
    await w.land(issueDelivery({}, MINI));
    expect(await w.table.getIssue('S', 'acme__widgets-42')).toMatchObject({ host: MINI });
  });

  it("keeps another host's run apart as a foreign attempt: the row stays, /attempts and the row count it", async () => {
    const w = world();
    const run = runDelivery();
    await w.land(run);
    const before = (await w.table.getRun('S', run.id))!.value;
    const squat = runDelivery({ host: MINI, finishedAt: '2026-11-21T00:00:00Z' }, { patch: '' });
    expect(await w.land(squat, 'squat')).toBe('foreign');
    expect(await w.land(squat, 'squat')).toBe('foreign');
    const after = (await w.table.getRun('S', run.id))!.value;
    expect(after).toEqual({ ...before, foreignCount: 1, updatedAt: after.updatedAt });
    expect(await w.table.listAttempts('S', run.id)).toEqual([
      expect.objectContaining({ host: MINI, foreign: true, judgeState: 'not-needed', judgeVerdict: null }),
    ]);
    expect(w.foreign).toEqual([
      { space: 'S', id: run.id, finishedAt: '2026-11-21T00:00:00.000Z', host: MINI, owner: STUDIO },
      expect.objectContaining({ host: MINI }),
    ]);
  });

  it("never lets a squatter's run take the owner's place: the real host's run lands beside it, nothing vanishes", async () => {
    const w = world();
    const real = runDelivery();
    // The squatter lands an empty patch first: it owns the id, and the real host's run is kept as foreign.
    await w.land(runDelivery({ host: MINI }, { patch: '' }), 'squat');
    expect(await w.land(real, 'real')).toBe('foreign');
    const attempts = await w.table.listAttempts('S', real.id);
    expect(attempts).toEqual([
      expect.objectContaining({ host: STUDIO, foreign: true, patchSha256: expect.any(String) }),
    ]);
    // The same finishedAt and patch again from the real host is the same foreign attempt, not a second one.
    await w.land(real, 'real-again');
    expect(await w.table.listAttempts('S', real.id)).toHaveLength(1);
    expect((await w.table.getRun('S', real.id))!.value).toMatchObject({ host: MINI, foreignCount: 1, attemptCount: 1 });
  });

  it('lets an operator give a squatted run id to its real host: its newest attempt becomes the row, judged anew', async () => {
    const w = world();
    await w.land(runDelivery({ host: MINI }, { patch: '' }), 'squat');
    const earlier = runDelivery({ finishedAt: '2026-11-20T18:00:00Z' });
    const real = runDelivery({ finishedAt: '2026-11-21T00:00:00Z' }, { patch: 'diff --git a/x b/x\n+fixed\n' });
    expect(await w.land(earlier, 'real-1')).toBe('foreign');
    expect(await w.land(real, 'real-2')).toBe('foreign');
    expect(await w.land(hiddenTestDelivery(real.id, '2026-11-21T00:00:00Z', 'pass', STUDIO), 'tests')).toBe(
      'hidden-test-applied',
    );
    const squatted = (await w.table.getRun('S', real.id))!.value;
    expect(squatted).toMatchObject({ host: MINI, judgeVerdict: 'no_change', foreignCount: 2 });
    const deps = reassignDeps(w);
    await expect(reassignRun(deps, 'S', real.id, 'mac-stranger-9')).rejects.toThrow(/not a sender of space S/);
    await expect(reassignRun(deps, 'S', 'no-such-run', STUDIO)).rejects.toThrow(/no run "no-such-run"/);
    expect(await reassignRun(deps, 'S', real.id, STUDIO)).toBe('reassigned');
    const promoted = (await w.table.listAttempts('S', real.id)).find(
      (a) => a.finishedAt === '2026-11-21T00:00:00.000Z',
    );
    const row = (await w.table.getRun('S', real.id))!.value;
    // The row is the real host's run, with its own patch and result, due at the judge: nothing of the squatter's.
    expect(row).toMatchObject({
      host: STUDIO,
      finishedAt: '2026-11-21T00:00:00.000Z',
      patchSha256: promoted!.patchSha256,
      textsKey: promoted!.textsKey,
      hiddenTestResult: { status: 'pass' },
      judgeState: 'pending',
      judgeVerdict: null,
      judgeNextAttemptAt: NOW.toISOString(),
      attemptCount: 2,
      firstAttempt: { finishedAt: '2026-11-20T18:00:00.000Z', judgeVerdict: null },
      foreignCount: 1,
      updatedAt: NOW.toISOString(),
    });
    expect(row).not.toHaveProperty('archivedAt');
    expect(row).not.toHaveProperty('foreign');
    // The squatter's row is archived with its verdict, counted as foreign; sent again, the reassign changes nothing.
    expect(await w.table.listAttempts('S', real.id)).toContainEqual(
      expect.objectContaining({ ...squatted, archivedAt: NOW.toISOString() }),
    );
    expect(await reassignRun(deps, 'S', real.id, STUDIO)).toBe('already-owned');
    expect((await w.table.getRun('S', real.id))!.value).toEqual(row);
    expect(await w.land(runDelivery({ finishedAt: '2026-11-22T00:00:00Z' }), 'real-next')).toBe('rerun');
    expect((await w.table.getRun('S', real.id))!.value).toMatchObject({
      host: STUDIO,
      finishedAt: '2026-11-22T00:00:00.000Z',
      attemptCount: 3,
      foreignCount: 1,
    });
    // The squatter's next delivery is now the foreign one; each attempt counts once, the promoted one archived
    // both as the foreign attempt it landed as and as the row it was.
    expect(await w.land(runDelivery({ host: MINI, finishedAt: '2026-11-23T00:00:00Z' }), 'squat-next')).toBe('foreign');
    expect((await w.table.getRun('S', real.id))!.value).toMatchObject({ attemptCount: 3, foreignCount: 2 });
  });

  it('weighs an attempt of the host that lands while the reassign runs', async () => {
    const w = world();
    await w.land(runDelivery({ host: MINI }, { patch: '' }), 'squat');
    const real = runDelivery({ finishedAt: '2026-11-21T00:00:00Z' });
    expect(await w.land(real, 'real')).toBe('foreign');
    let landedMeanwhile = false;
    const attempts = {
      listAttempts: async (space: string, id: string) => {
        const list = await w.table.listAttempts(space, id);
        if (!landedMeanwhile) {
          landedMeanwhile = true;
          expect(await w.land(runDelivery({ finishedAt: '2026-11-22T00:00:00Z' }), 'real-later')).toBe('foreign');
        }
        return list;
      },
      archiveAttempt: (attempt: ArchivedAttempt) => w.table.archiveAttempt(attempt),
    };
    const deps = reassignDeps(w, attempts);
    expect(await reassignRun(deps, 'S', real.id, STUDIO)).toBe('reassigned');
    expect((await w.table.getRun('S', real.id))!.value).toMatchObject({
      host: STUDIO,
      finishedAt: '2026-11-22T00:00:00.000Z',
      attemptCount: 2,
      foreignCount: 1,
    });
  });

  it.each([
    ['an empty patch', { patch: '' }, {}, 'no_change'],
    ['an empty patch archived before the patch was kept', { patch: ' \n' }, { legacy: true }, 'no_change'],
    ['an unrecorded patch', { patch: null }, {}, 'excluded'],
    ['an unrecorded patch archived before the patch was kept', { patch: null }, { legacy: true }, 'excluded'],
    ['a run that reached outside its snapshot', {}, { contaminated: true }, 'excluded'],
  ])('reassigns %s with the verdict it takes without a call', async (_name, extra, how, verdict) => {
    const w = world();
    await w.land(runDelivery({ host: MINI }), 'squat');
    const contamination = [{ step: 3, path: '/etc/hosts' }];
    const real = runDelivery(
      { finishedAt: '2026-11-21T00:00:00Z', ...('contaminated' in how && { contamination }) },
      extra,
    );
    expect(await w.land(real, 'real')).toBe('foreign');
    // An attempt archived before its patch's presence was kept: the table returns it without the field.
    const legacy = {
      listAttempts: async (space: string, id: string) =>
        (await w.table.listAttempts(space, id)).map(({ patch: _patch, ...attempt }) => attempt),
      archiveAttempt: (attempt: ArchivedAttempt) => w.table.archiveAttempt(attempt),
    };
    const attempts = 'legacy' in how ? legacy : w.table;
    const deps = reassignDeps(w, attempts);
    expect(await reassignRun(deps, 'S', real.id, STUDIO)).toBe('reassigned');
    expect((await w.table.getRun('S', real.id))!.value).toMatchObject({
      host: STUDIO,
      judgeVerdict: verdict,
      judgeState: 'not-needed',
      judgeNextAttemptAt: null,
    });
  });

  it("gives a host's hidden-test result to its own foreign attempt, before or after it lands, never to the row", async () => {
    const w = world();
    const run = runDelivery();
    await w.land(runDelivery({ host: MINI }, { patch: '' }), 'squat');
    expect(await w.land(hiddenTestDelivery(run.id, F, 'pass', STUDIO), 'early')).toBe('hidden-test-held');
    await w.land(run, 'real');
    expect((await w.table.listAttempts('S', run.id))[0]).toMatchObject({
      host: STUDIO,
      hiddenTestResult: { status: 'pass' },
    });
    const later = { ...hiddenTestDelivery(run.id, F, 'fail', STUDIO) };
    later.hiddenTestResult = { ...later.hiddenTestResult, ranAt: '2026-11-22T09:00:00Z' };
    expect(await w.land(later, 'later')).toBe('hidden-test-applied');
    expect((await w.table.listAttempts('S', run.id))[0]).toMatchObject({ hiddenTestResult: { status: 'fail' } });
    expect((await w.table.getRun('S', run.id))!.value).toMatchObject({ host: MINI, hiddenTestResult: null });
  });

  it("applies the run's own host's result held beside another host's, and keeps the other's held", async () => {
    const w = world();
    const run = runDelivery();
    await w.land(hiddenTestDelivery(run.id, F, 'pass', STUDIO), 'own');
    await w.land(hiddenTestDelivery(run.id, F, 'fail', MINI), 'foreign');
    await w.land(run);
    expect((await w.table.getRun('S', run.id))!.value.hiddenTestResult).toMatchObject({ status: 'pass' });
    expect((await w.table.getPendingHiddenTests('S', run.id)).map((p) => p.host)).toContain(MINI);
  });

  it('decides "foreign" for a run whose stored row names another host, or that its host may not own (the landing table)', () => {
    const current = runRow();
    const delivered = {
      space: 'S',
      id: current.id,
      deliveryId: 'x',
      row: runnerRowSchema.parse({ ...runDelivery({ host: MINI }).row }),
      patchSha256: current.patchSha256,
      patch: 'present' as const,
      patchTruncated: false,
      textsKey: 't',
      contaminationKey: null,
      acceptedAt: NOW.toISOString(),
      pinnedOwners: null,
      pinnedName: false,
    };
    expect(landingCase(current, delivered)).toBe('foreign');
    expect(landingCase(null, delivered)).toBe('new');
    expect(landingCase(null, { ...delivered, pinnedOwners: ['mac-pro-3'] })).toBe('foreign');
  });
});

describe("a space's hostsByModel", () => {
  const pinned = { hostsByModel: { 'qwen3:8b': [STUDIO] } };

  it('lets only a pinned host take a free run id of its model: another host landing first is kept as foreign', async () => {
    const w = world(pinned);
    const run = runDelivery();
    expect((await w.send(runDelivery({ host: MINI }, { patch: '' }))).status).toBe(202);
    expect(await w.landSent()).toEqual(['foreign']);
    expect(await w.table.getRun('S', run.id)).toBeNull();
    expect((await w.send(run)).status).toBe(202);
    expect(await w.landSent()).toEqual(['new']);
    expect((await w.table.getRun('S', run.id))!.value).toMatchObject({ host: STUDIO, foreignCount: 1 });
    expect(w.foreign).toEqual([expect.objectContaining({ host: MINI, owner: null })]);
  });

  it('pins the look-alike whose run ids are the same: "qwen3_8b" of another host first is kept as foreign', async () => {
    const w = world(pinned);
    const squat = runDelivery({ host: MINI, model: 'qwen3_8b', finishedAt: '2026-11-29T11:59:00Z' });
    expect(squat.id).toBe(runDelivery().id);
    expect((await w.send(squat)).status).toBe(202);
    expect(await w.landSent()).toEqual(['foreign']);
    expect(await w.table.getRun('S', squat.id)).toBeNull();
    expect((await w.send(runDelivery())).status).toBe(202);
    expect(await w.landSent()).toEqual(['new']);
    expect((await w.table.getRun('S', squat.id))!.value).toMatchObject({ host: STUDIO, model: 'qwen3:8b' });
  });

  it("lets a pinned host's run reclaim its id from a look-alike another host landed before the pin", async () => {
    const w = world(pinned);
    const squat = runDelivery({ host: MINI, model: 'qwen3_8b', finishedAt: '2026-11-29T11:59:00Z' });
    expect(await w.land(squat, 'd-squat')).toBe('new');
    expect((await w.send(runDelivery())).status).toBe(202);
    expect(await w.landSent()).toEqual(['reclaims']);
    const row = (await w.table.getRun('S', squat.id))!.value;
    expect(row).toMatchObject({ host: STUDIO, model: 'qwen3:8b', judgeState: 'pending', attemptCount: 1 });
    expect(await w.table.listAttempts('S', squat.id)).toEqual([
      expect.objectContaining({ host: MINI, model: 'qwen3_8b', collision: true }),
    ]);
    // The look-alike sent again is kept apart; the pinned run stays.
    expect((await w.send(squat)).status).toBe(202);
    expect(await w.landSent()).toEqual(['collision']);
    expect((await w.table.getRun('S', squat.id))!.value).toMatchObject({ host: STUDIO, model: 'qwen3:8b' });
  });

  it.each([
    ['a no-break space after it', 'qwen3:8b\u00a0'],
    ['a space after it', 'qwen3:8b '],
    ['a full-width colon', 'qwen3\uff1a8b'],
    ['a ratio sign for the colon', 'qwen3\u22368b'],
    ['a Cyrillic letter for the q', '\u051bwen3:8b'],
    ['capitals', 'QWEN3:8B'],
    ['a combining grapheme joiner inside it', 'qwen\u034f3:8b'],
    ['a Khmer inherent vowel inside it', 'qwen3:8\u17b4b'],
    ['a Hangul filler after it', 'qwen3:8b\u3164'],
    ['a half-width Hangul filler after it', 'qwen3:8b\uffa0'],
  ])('pins a name that reads as the model (%s): another host’s run of it is kept as foreign', async (_what, model) => {
    const w = world(pinned);
    expect((await w.send(runDelivery({ host: MINI, model }))).status).toBe(202);
    expect(await w.landSent()).toEqual(['foreign']);
  });

  it.each([
    ['Cyrillic І', 'GEM\u0406N\u0406-2.5-PRO'],
    ['Greek Ι', 'GEM\u0399N\u0399-2.5-PRO'],
    ['l for I', 'GEMlNl-2.5-PRO'],
    ['rn for m', 'gernini-2.5-pro'],
    ['cl for d', 'daude-opus-4'],
    ['vv for w', 'qvven3:8b'],
    ['0 for o', 'gemini-2.5-pr0'],
    ['| for l', 'c|aude-opus-4'],
    ['| for i', 'gem|n|-2.5-pro'],
    ['9 for g', '9emini-2.5-pro'],
    ['5 for s', 'claude-opu5-4'],
  ])('pins a name with %s for letters of a pinned one', async (_what, model) => {
    const w = world({ hostsByModel: { 'gemini-2.5-pro': [STUDIO], 'claude-opus-4': [STUDIO], 'qwen3:8b': [STUDIO] } });
    expect((await w.send(runDelivery({ host: MINI, model }))).status).toBe(202);
    expect(await w.landSent()).toEqual(['foreign']);
  });

  it("never reclaims with a look-alike: a pinned host's qwen3_8b leaves another host's qwen3:8b under the id", async () => {
    const w = world(pinned);
    const real = runDelivery({ host: MINI });
    expect(await w.land(real, 'd-real')).toBe('new');
    expect((await w.send(runDelivery({ model: 'qwen3_8b' }))).status).toBe(202);
    expect(await w.landSent()).toEqual(['collision']);
    expect((await w.table.getRun('S', real.id))!.value).toMatchObject({ host: MINI, model: 'qwen3:8b' });
  });

  it("refuses to give a host a look-alike's row that would refuse the host's own run, and names the pin instead", async () => {
    const w = world();
    const squat = runDelivery({ host: MINI, model: 'qwen3_8b' }, { patch: '' });
    expect(await w.land(squat, 'd-squat')).toBe('new');
    const real = runDelivery();
    expect(real.id).toBe(squat.id);
    expect((await w.send(real)).status).toBe(202);
    expect(await w.landSent()).toEqual(['collision']);
    const deps = reassignDeps(w);
    await expect(reassignRun(deps, 'S', real.id, STUDIO)).rejects.toThrow(
      /not the model "qwen3:8b", task "acme__widgets-42", harness "h2" mac-studio-1 sent .* Pin qwen3:8b to mac-studio-1/,
    );
    expect((await w.table.getRun('S', real.id))!.value).toMatchObject({ host: MINI, model: 'qwen3_8b' });
    // Had it been given, the real host's next run of its own would be a 409 for ever.
    expect((await w.send(runDelivery({ finishedAt: '2026-11-21T00:00:00Z' }))).status).toBe(202);
  });

  it('refuses to give a host a row before any run of the host under the id has landed', async () => {
    const w = world();
    const squat = runDelivery({ host: MINI, model: 'qwen3_8b' }, { patch: '' });
    expect(await w.land(squat, 'd-squat')).toBe('new');
    // STUDIO's qwen3:8b is accepted and still on its way when the operator acts.
    expect((await w.send(runDelivery())).status).toBe(202);
    const deps = reassignDeps(w);
    await expect(reassignRun(deps, 'S', squat.id, STUDIO)).rejects.toThrow(/mac-studio-1 has landed no run under/);
    expect((await w.table.getRun('S', squat.id))!.value.host).toBe(MINI);
    expect(await w.landSent()).toEqual(['collision']);
    expect((await w.send(runDelivery({ finishedAt: '2026-11-21T00:00:00Z' }))).status).toBe(202);
  });

  it('refuses to reassign a look-alike to the host its model is pinned to, whose own run reclaims the id', async () => {
    const w = world(pinned);
    const squat = runDelivery({ host: MINI, model: 'qwen3_8b' });
    expect(await w.land(squat, 'd-squat')).toBe('new');
    const deps = reassignDeps(w);
    await expect(reassignRun(deps, 'S', squat.id, STUDIO)).rejects.toThrow(/look-alike of qwen3:8b/);
    expect((await w.table.getRun('S', squat.id))!.value.host).toBe(MINI);
  });

  it('pins a model named in decomposed letters as the delivered (composed) name reads it', async () => {
    const w = world({ hostsByModel: { 'cafe\u0301:7b': [STUDIO] } });
    expect((await w.send(runDelivery({ host: MINI, model: 'caf\u00e9_7b' }))).status).toBe(202);
    expect(await w.landSent()).toEqual(['foreign']);
  });

  it('leaves the models it does not name to any sender', async () => {
    const w = world(pinned);
    expect((await w.send(runDelivery({ host: MINI, model: 'llama3:8b' }))).status).toBe(202);
    expect(await w.landSent()).toEqual(['new']);
  });

  it('refuses a configuration that pins a model to a host that is not a sender', () => {
    expect(() => parseConfig({ spaces: { S: { senders: [STUDIO], hostsByModel: { m: [MINI] } } } })).toThrow(
      /spaces\.S\.hostsByModel: names "mac-mini-2", which the space's "senders" does not list/,
    );
  });
});
