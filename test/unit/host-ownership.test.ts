// One host, its own data (docs/contract.md §3 check 7, §4): the rules at ingest and at landing, against in-memory
// ports. A run and its hidden-test results belong to the host whose row it is; a task's issue record to the first
// publisher that sent it, among the space's `issuePublishers`.
import { describe, expect, it } from '@jest/globals';
import { decideLanding } from '../../shared/core/landing/decide.ts';
import { parseConfig } from '../../shared/schema/config.ts';
import { runnerRowSchema } from '../../shared/schema/run.ts';
import { hiddenTestDelivery, issueDelivery, runDelivery } from '../helpers/deliveries.ts';
import { ingestLandingWorld as world, MINI, NOW, PRO, STUDIO } from '../helpers/ingest-landing-world.ts';
import { runRow } from '../helpers/records.ts';

const F = '2026-11-20T10:12:00.000Z';

const notOwner = { status: 403, body: { signature: 'verified', error: 'not-owner' } };

describe('at ingest', () => {
  it("refuses another host's hidden-test result for a landed run with 403 not-owner, and stores nothing", async () => {
    const w = world();
    const run = runDelivery();
    await w.land(run);
    const answer = await w.send(hiddenTestDelivery(run.id, F, 'fail', MINI));
    expect(answer).toMatchObject(notOwner);
    expect((answer.body as { message: string }).message).toMatch(/belongs to host "mac-studio-1"/);
    expect(await w.inbox.list('inbox/')).toEqual([]);
    expect((await w.send(hiddenTestDelivery(run.id, F, 'fail', STUDIO))).status).toBe(202);
  });

  it("refuses another host's run for a landed run id (it would supersede it)", async () => {
    const w = world();
    await w.land(runDelivery());
    const answer = await w.send(runDelivery({ host: MINI, finishedAt: '2026-11-21T00:00:00Z' }));
    expect(answer).toMatchObject(notOwner);
    expect(await w.inbox.list('inbox/')).toEqual([]);
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

  it("never applies another host's result held before the run landed, and records it as rejected", async () => {
    const w = world();
    const run = runDelivery();
    expect(await w.land(hiddenTestDelivery(run.id, F, 'fail', MINI), 'foreign')).toBe('hidden-test-held');
    expect(await w.land(run)).toBe('new');
    expect((await w.table.getRun('S', run.id))!.value.hiddenTestResult).toBeNull();
    expect(w.rejected).toEqual([{ kind: 'hidden-test', space: 'S', id: run.id, host: MINI, owner: STUDIO }]);
  });

  it("applies the run's own host's result held beside another host's", async () => {
    const w = world();
    const run = runDelivery();
    await w.land(hiddenTestDelivery(run.id, F, 'pass', STUDIO), 'own');
    await w.land(hiddenTestDelivery(run.id, F, 'fail', MINI), 'foreign');
    await w.land(run);
    expect((await w.table.getRun('S', run.id))!.value.hiddenTestResult).toMatchObject({ status: 'pass' });
  });

  it("refuses another host's result or run that passed ingest before the run landed: nothing changes", async () => {
    const w = world();
    const run = runDelivery();
    await w.land(run);
    const before = await w.table.getRun('S', run.id);
    expect(await w.land(hiddenTestDelivery(run.id, F, 'fail', MINI), 'late-foreign')).toBe('hidden-test-rejected');
    expect(await w.land(runDelivery({ host: MINI, finishedAt: '2026-11-21T00:00:00Z' }), 'rerun')).toBe('not-owner');
    expect(await w.land(runDelivery({ host: MINI, finishedAt: '2026-11-19T00:00:00Z' }), 'late')).toBe('not-owner');
    expect(await w.table.getRun('S', run.id)).toEqual(before);
    expect(await w.table.listAttempts('S', run.id)).toEqual([]);
    expect(w.rejected.map((r) => [r.kind, r.host])).toEqual([
      ['hidden-test', MINI],
      ['run', MINI],
      ['run', MINI],
    ]);
  });

  it('decides "not-owner" for a run whose stored row names another host (the landing table)', () => {
    const current = runRow();
    const incoming = runnerRowSchema.parse({ ...runDelivery({ host: MINI }).row });
    expect(
      decideLanding(
        current,
        {
          space: 'S',
          id: current.id,
          deliveryId: 'x',
          row: incoming,
          patchSha256: current.patchSha256,
          patchEmpty: false,
          patchTruncated: false,
          patchKey: 'p',
          summaryKey: 's',
          contaminationKey: null,
          acceptedAt: NOW.toISOString(),
        },
        NOW.toISOString(),
        null,
      ),
    ).toEqual({ kind: 'not-owner', owner: STUDIO });
  });
});
