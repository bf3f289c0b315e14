// Findings of the security review (issue 11), each reproduced over local mode's HTTP server: a space's
// repository allowlist at ingest, malformed paths and prototype names answered 4xx, forged cursors refused,
// and host records that show only the asking space.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pushDelivery } from '#runner/push.ts';
import { issueDelivery, runDelivery } from '../helpers/deliveries.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

const config = {
  spaces: {
    Main: { senders: ['mac-studio-1', 'mac-mini-2'], repos: ['Acme/Widgets'] },
    Other: { senders: ['mac-studio-1'] },
  },
};
const keys = { 'mac-studio-1': 'k-studio', 'mac-mini-2': 'k-mini' };

let local: TestLocalMode;
beforeAll(async () => {
  local = await startTestLocalMode(config, keys, { visibilityTimeoutSeconds: 1 });
});
afterAll(() => local.stop());

/** A raw request, so the path reaches the server exactly as written (fetch would normalise it). */
function send(method: string, path: string, body = ''): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(local.url, { method, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: Record<string, unknown>;
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          json = { notJson: text };
        }
        resolve({ status: res.statusCode!, body: json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const getJson = async (path: string) => send('GET', path);

describe('a space that lists its repositories', () => {
  it('refuses an issue record of another repository with 400 repo-not-allowed, and stores nothing', async () => {
    const answer = await pushDelivery(
      local.url,
      'Main',
      issueDelivery({ taskId: 'elsewhere-1', repo: 'evil/elsewhere' }),
      keys['mac-studio-1'],
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ signature: 'verified', error: 'repo-not-allowed' });
    expect(answer.body.message).toMatch(/evil\/elsewhere/);
    expect(await local.adapters.inbox.list('inbox/Main/')).toEqual([]);
  });

  it('accepts an issue record of a listed repository, compared without regard to case', async () => {
    const answer = await pushDelivery(
      local.url,
      'Main',
      issueDelivery({ taskId: 'listed-1', repo: 'ACME/widgets' }),
      keys['mac-studio-1'],
    );
    expect(answer.status).toBe(202);
    await eventually(async () =>
      ((await getJson('/api/spaces/Main/issues')).body.issues as { taskId: string }[]).some(
        (i) => i.taskId === 'listed-1',
      ),
    );
  });

  it('still accepts any repository in a space without a list', async () => {
    expect(
      (
        await pushDelivery(
          local.url,
          'Other',
          issueDelivery({ taskId: 'any-1', repo: 'evil/elsewhere' }),
          keys['mac-studio-1'],
        )
      ).status,
    ).toBe(202);
  });
});

describe('malformed paths and prototype names', () => {
  it.each([
    ['POST', '/hooks/%E0%A4%A/ingest', 400, 'bad-path'],
    ['POST', '/hooks/%/ingest', 400, 'bad-path'],
    ['POST', '/hooks/constructor/ingest', 404, 'unknown-space'],
    ['POST', '/hooks/__proto__/ingest', 404, 'unknown-space'],
    ['POST', '/hooks/toString/ingest', 404, 'unknown-space'],
    ['POST', '/hooks/hasOwnProperty/ingest', 404, 'unknown-space'],
    ['GET', '/api/spaces/constructor/hosts', 404, 'unknown-space'],
    ['GET', '/api/spaces/__proto__/runs', 404, 'unknown-space'],
    ['GET', '/api/spaces/valueOf/issues', 404, 'unknown-space'],
    ['GET', '/api/spaces/%E0%A4%A/runs', 400, 'bad-path'],
    ['GET', '/api/spaces/Main/runs/%E0%A4%A', 400, 'bad-path'],
    ['GET', '/%E0%A4%A', 400, 'bad-path'],
    ['GET', '/assets/%ZZ.js', 400, 'bad-path'],
    ['GET', '/index.constructor', 404, 'not-found'],
    ['GET', '/x.__proto__', 404, 'not-found'],
  ])('%s %s answers %i %s with a sentence', async (method, path, status, error) => {
    const answer = await send(method, path, method === 'POST' ? '{}' : '');
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ error });
    expect(answer.body.message).toMatch(/\.$/);
  });
});

describe('a forged cursor', () => {
  const cursor = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');
  it.each([
    ["naming another space's partition", cursor({ pk: 'SPACE#Other', sk: 'RUN#x' })],
    ['naming another kind of item', cursor({ pk: 'SPACE#Main', sk: 'ISSUE#x' })],
    ['with keys the table does not have', cursor({ pk: 'SPACE#Main', sk: 'RUN#x', extra: 'y' })],
    ['missing the sort key', cursor({ pk: 'SPACE#Main' })],
    ['of the wrong type', cursor({ pk: 1, sk: 'RUN#x' })],
    ['that is not JSON', 'bm90LWpzb24'],
  ])('%s answers 400 bad-cursor', async (_what, forged) => {
    const answer = await getJson(`/api/spaces/Main/runs?cursor=${forged}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'bad-cursor' });
  });

  it("naming another space's partition with since answers 400 bad-cursor too", async () => {
    const forged = cursor({
      pk: 'SPACE#Other',
      sk: 'RUN#x',
      byUpdatedPk: 'RUNS#Other',
      byUpdatedSk: '2026-01-01T00:00:00.000Z#x',
    });
    const answer = await getJson(`/api/spaces/Main/runs?since=2025-01-01T00:00:00Z&cursor=${forged}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'bad-cursor' });
  });

  it('handed out by the API still pages', async () => {
    for (let i = 0; i < 3; i++)
      await pushDelivery(local.url, 'Other', runDelivery({ taskId: `cursor-${i}` }), keys['mac-studio-1']);
    await eventually(async () => ((await getJson('/api/spaces/Other/runs')).body.runs as unknown[]).length >= 3);
    for (const since of ['', '&since=2020-01-01T00:00:00Z']) {
      const first = await getJson(`/api/spaces/Other/runs?limit=2${since}`);
      const second = await getJson(`/api/spaces/Other/runs?limit=1000${since}&cursor=${first.body.cursor as string}`);
      expect(second.status).toBe(200);
      expect((second.body.runs as unknown[]).length).toBeGreaterThanOrEqual(1);
    }
  });
});

describe("a space's host records", () => {
  it("show only this space's deliveries and hardware, never another space", async () => {
    const main = runDelivery({ taskId: 'hosts-main', hostHardware: 'Mac Studio M2 Ultra' });
    await pushDelivery(local.url, 'Main', main, keys['mac-studio-1']);
    await eventually(
      async () => (await getJson(`/api/spaces/Main/runs/${encodeURIComponent(main.id as string)}`)).status === 200,
    );
    const mainHost = async () =>
      ((await getJson('/api/spaces/Main/hosts')).body.hosts as Record<string, unknown>[]).find(
        (h) => h.host === 'mac-studio-1',
      )!;
    const before = await mainHost();

    const other = runDelivery({ taskId: 'hosts-other', hostHardware: 'Secret prototype rig' });
    await pushDelivery(local.url, 'Other', other, keys['mac-studio-1']);
    await eventually(
      async () => (await getJson(`/api/spaces/Other/runs/${encodeURIComponent(other.id as string)}`)).status === 200,
    );

    const after = await mainHost();
    expect(after).toEqual(before);
    expect(after).toMatchObject({ hostHardware: 'Mac Studio M2 Ultra', spaces: ['Main'] });
    expect(JSON.stringify((await getJson('/api/spaces/Main/hosts')).body)).not.toMatch(/Other|Secret prototype rig/);
    const otherHost = ((await getJson('/api/spaces/Other/hosts')).body.hosts as Record<string, unknown>[])[0]!;
    expect(otherHost).toMatchObject({ host: 'mac-studio-1', hostHardware: 'Secret prototype rig', spaces: ['Other'] });
  });
});
