// A public cockpit never serves the judge's reason (issue 35, item 6): not on a run, not in the runs list, not
// as an export column, even where the space lists `judgeReason` among its export fields. A private cockpit of
// the same configuration still does.
import { describe, expect, it } from '@jest/globals';
import { cockpitConfig } from '#infra/aws/deployment-config.ts';
import { parseConfig } from '#schema/config.ts';
import { judgeWorldWithFix } from '../../../helpers/in-memory-judge.ts';

const config = parseConfig({
  spaces: {
    Open: { senders: ['mac-studio-1'], exports: { fields: ['id', 'judgeVerdict', 'judgeReason'] } },
    Team: { senders: ['mac-studio-1'], exports: { fields: ['id', 'judgeVerdict', 'judgeReason'] } },
  },
  cockpits: { Published: { space: 'Open', public: true }, Internal: { space: 'Team' } },
});

async function judgedRun(space: string) {
  const w = judgeWorldWithFix(config);
  await w.putIssue(space, 't-1', 'acme/widgets', 42);
  const row = await w.putRun({ space, taskId: 't-1' });
  expect(await w.judge(row)).toMatchObject({ result: 'judged' });
  expect((await w.current(row)).judgeReason).toBe('Fixes the null check like the reference.');
  return { w, row };
}

describe("the judge's reason", () => {
  it('is served by no answer of a public cockpit', async () => {
    const { w, row } = await judgedRun('Open');
    const read = (path: string) => w.read(cockpitConfig(config, 'Published'), path);
    expect((await read(`/api/spaces/Open/runs/${encodeURIComponent(row.id)}`)).body).toMatchObject({
      judgeVerdict: 'resolved',
      judgeReason: null,
    });
    const list = (await read('/api/spaces/Open/runs')).body as { runs: { judgeReason: unknown }[] };
    expect(list.runs.map((r) => r.judgeReason)).toEqual([null]);
    const csv = Buffer.from((await read('/api/spaces/Open/export.csv')).body as unknown as Uint8Array).toString();
    expect(csv.split(/\r?\n/)[0]).toBe('id,judgeVerdict');
    // Local mode serves every cockpit from one read API: a space any public cockpit shows gets no reason there either.
    expect((await w.read(config, `/api/spaces/Open/runs/${encodeURIComponent(row.id)}`)).body).toMatchObject({
      judgeReason: null,
    });
  });

  it('is served by a private cockpit, and exported where the space lists it', async () => {
    const { w, row } = await judgedRun('Team');
    const read = (path: string) => w.read(cockpitConfig(config, 'Internal'), path);
    expect((await read(`/api/spaces/Team/runs/${encodeURIComponent(row.id)}`)).body).toMatchObject({
      judgeReason: 'Fixes the null check like the reference.',
    });
    const csv = Buffer.from((await read('/api/spaces/Team/export.csv')).body as unknown as Uint8Array).toString();
    expect(csv.split(/\r?\n/)[0]).toBe('id,judgeVerdict,judgeReason');
  });
});
