// A delivery's times order it against the run's other deliveries (docs/contract.md §4: a later finishedAt replaces,
// an earlier one is stale). A time still to come would put a delivery after every real one, so ingest answers a time
// more than the space's timestamp tolerance ahead of its clock with 425 times-ahead naming the field (the runner
// keeps it queued), queues nothing, and takes the same delivery once its clock has reached that time.
import { describe, expect, it } from '@jest/globals';
import { runId } from '#schema/run-id.ts';
import { hiddenTestDelivery, issueDelivery, runDelivery, runnerRow } from '../../../helpers/deliveries.ts';
import { ingestWorld } from '../../../helpers/ingest-world.ts';

const NOW = new Date('2026-11-29T12:00:00.000Z');
const KEY = 'k'.repeat(64);
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000).toISOString();

function world() {
  const config = { spaces: { S: { senders: ['mac-studio-1'], timestampToleranceSeconds: 300 } } };
  const w = ingestWorld(config, { 'Hosting:ModuleReportSecret:mac-studio-1': [KEY] }, NOW);
  return { ...w, send: (delivery: unknown) => w.send('S', delivery, KEY) };
}

describe('times ahead of the endpoint’s clock', () => {
  const ranAhead = hiddenTestDelivery(runId(runnerRow()), '2026-11-20T10:12:00Z');
  ranAhead.hiddenTestResult.ranAt = at(3600);
  it.each([
    ['a run that finished in 2099', runDelivery({ finishedAt: '2099-12-31T23:59:59Z' }), 'row.finishedAt'],
    ['a run that started an hour ahead', runDelivery({ startedAt: at(3600), finishedAt: at(3700) }), 'row.startedAt'],
    ['a hidden-test result for a finishedAt to come', hiddenTestDelivery(runId(runnerRow()), at(600)), 'finishedAt'],
    ['a hidden-test result run an hour ahead', ranAhead, 'hiddenTestResult.ranAt'],
    ['an issue record sent a day ahead', issueDelivery({}, 'mac-studio-1', at(86_400)), 'sentAt'],
  ])('answers %s with a 425 naming the field, and queues nothing', async (_what, delivery, field) => {
    const w = world();
    const answer = await w.send(delivery);
    expect(answer).toMatchObject({ status: 425, body: { signature: 'verified', error: 'times-ahead' } });
    expect((answer.body as { details: string[] }).details.some((d) => d.startsWith(`${field}: `))).toBe(true);
    expect(w.queued()).toBe(0);
  });

  it('takes the same run once the clock has reached its times', async () => {
    const w = world();
    const fast = runDelivery({ startedAt: at(-60), finishedAt: at(3600) });
    expect(await w.send(fast)).toMatchObject({ status: 425 });
    w.clock.advance(3600);
    expect(await w.send(fast)).toMatchObject({ status: 202 });
    expect(w.queued()).toBe(1);
  });

  it('takes times within the tolerance ahead, as a host clock a little fast gives them', async () => {
    const w = world();
    expect(await w.send(runDelivery({ startedAt: at(-600), finishedAt: at(290) }))).toMatchObject({ status: 202 });
    expect(w.queued()).toBe(1);
  });
});
