// Two runs, one id (docs/contract.md §2, §3, §4): `coll:8b` and `coll_8b` share an id form. Ingest answers the same
// host's later run 409 id-collision naming both once the first has landed (another host's is taken); landing, meeting a collision that passed ingest
// before the first landed, keeps the stored run and archives the other apart, marked `collision`.
import { describe, expect, it } from '@jest/globals';
import { landingCase } from '#core/landing/decide.ts';
import { runnerRowSchema } from '#schema/run.ts';
import { hiddenTestDelivery, runDelivery } from '../../../helpers/deliveries.ts';
import { ingestLandingWorld as world, MINI, STUDIO } from '../../../helpers/ingest-landing-world.ts';
import { runRow } from '../../../helpers/records.ts';

const first = runDelivery({ model: 'coll:8b' });
const second = runDelivery({ model: 'coll_8b' });
const F = '2026-11-20T10:12:00.000Z';

describe('at ingest', () => {
  it('answers 409 id-collision naming both runs, and stores nothing', async () => {
    const w = world();
    expect(second.id).toBe(first.id);
    await w.land(first);
    const answer = await w.send(second);
    expect(answer).toMatchObject({
      status: 409,
      body: {
        signature: 'verified',
        error: 'id-collision',
        stored: { model: 'coll:8b', taskId: 'acme__widgets-42', harnessVersion: 'h2' },
        delivered: { model: 'coll_8b', taskId: 'acme__widgets-42', harnessVersion: 'h2' },
      },
    });
    expect((answer.body as { message: string }).message).toContain('model "coll:8b"');
    expect((answer.body as { message: string }).message).toContain('model "coll_8b"');
    expect(await w.inbox.list('inbox/')).toEqual([]);
  });

  it("never refuses a run for another host's row under its id: it is taken, and landing keeps it apart", async () => {
    const w = world();
    await w.land(first);
    const before = await w.table.getRun('S', first.id);
    const other = runDelivery({ model: 'coll_8b', host: MINI });
    expect(await w.send(other)).toMatchObject({ status: 202 });
    expect(await w.landSent()).toEqual(['collision']);
    expect(await w.table.getRun('S', first.id)).toEqual(before);
  });

  it('takes another attempt of the stored run itself', async () => {
    const w = world();
    await w.land(first);
    expect((await w.send(runDelivery({ model: 'coll:8b', finishedAt: '2026-11-21T00:00:00Z' }))).status).toBe(202);
  });

  it('refuses a model whose id form holds "__" with 400 before reading any row', async () => {
    const w = world();
    await w.land(runDelivery({ model: 'm2', taskId: 'acme__x' }));
    expect(await w.send(runDelivery({ model: 'm2__acme', taskId: 'x' }))).toMatchObject({
      status: 400,
      body: { error: 'invalid-delivery', details: [expect.stringMatching(/^row\.model: /)] },
    });
  });
});

describe('at landing', () => {
  it('keeps the stored run, archives the other apart marked collision, and records it', async () => {
    const w = world();
    await w.land(first);
    const before = await w.table.getRun('S', first.id);
    expect(await w.land(second, 'd-second')).toBe('collision');
    expect(await w.land(second, 'd-second')).toBe('collision');
    expect(await w.table.getRun('S', first.id)).toEqual(before);
    expect(await w.table.listAttempts('S', first.id)).toEqual([
      expect.objectContaining({ model: 'coll_8b', collision: true, judgeState: 'not-needed', judgeVerdict: null }),
    ]);
    expect(w.collisions).toEqual([
      {
        space: 'S',
        id: first.id,
        host: STUDIO,
        stored: { model: 'coll:8b', taskId: 'acme__widgets-42', harnessVersion: 'h2', sample: 1 },
        delivered: { model: 'coll_8b', taskId: 'acme__widgets-42', harnessVersion: 'h2', sample: 1 },
      },
      expect.objectContaining({ delivered: expect.objectContaining({ model: 'coll_8b' }) }),
    ]);
  });

  it("never lets a collision take the place of the run's own archived attempt, nor its counts", async () => {
    const w = world();
    await w.land(first, 'd-1');
    await w.land(runDelivery({ model: 'coll:8b', finishedAt: '2026-11-21T00:00:00Z' }), 'd-2');
    // The same finishedAt and patch as the run's own archived attempt.
    expect(await w.land(second, 'd-3')).toBe('collision');
    const attempts = await w.table.listAttempts('S', first.id);
    expect(attempts.map((a) => [a.model, a.collision ?? false])).toEqual(
      expect.arrayContaining([
        ['coll:8b', false],
        ['coll_8b', true],
      ]),
    );
    expect(attempts).toHaveLength(2);
    expect((await w.table.getRun('S', first.id))!.value).toMatchObject({ attemptCount: 2, conflictCount: 0 });
  });

  it("gives the stored run's hidden-test result to its own attempt, never to a collision", async () => {
    const w = world();
    await w.land(second, 'd-collision-first');
    await w.land(first, 'd-own');
    await w.land(runDelivery({ model: 'coll_8b', finishedAt: '2026-11-21T00:00:00Z' }), 'd-rerun');
    expect(await w.land(hiddenTestDelivery(first.id, F, 'fail'), 'd-hidden')).toBe('hidden-test-applied');
    const attempts = await w.table.listAttempts('S', first.id);
    expect(attempts.find((a) => a.model === 'coll:8b')).toMatchObject({ collision: true, hiddenTestResult: null });
    expect(attempts.find((a) => a.model === 'coll_8b')).toMatchObject({ hiddenTestResult: { status: 'fail' } });
  });

  it('decides "collision" for a row of another run under the same id (the landing table)', () => {
    const current = runRow({ model: 'coll:8b' });
    const row = runnerRowSchema.parse(second.row);
    const { space, id, patchSha256, textsKey, patchTruncated } = current;
    const incoming = { space, id, row, patchSha256, textsKey: textsKey!, patchTruncated };
    const delivered = {
      ...incoming,
      deliveryId: 'x',
      patch: 'present' as const,
      contaminationKey: null,
      acceptedAt: F,
      pinnedOwners: null,
      pinnedName: false,
    };
    expect(landingCase(current, delivered)).toBe('collision');
    expect(landingCase(current, { ...delivered, row: runnerRowSchema.parse(first.row) })).toBe('retry');
  });
});
