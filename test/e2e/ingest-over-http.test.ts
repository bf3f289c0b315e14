// Local mode end to end over plain HTTP: signed deliveries in, rows out, every refusal answered as docs/contract.md §3
// says and leaving nothing behind.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SendMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { pushDelivery } from '#runner/push.ts';
import { signV1 } from '#shared/signature.ts';
import { inboxKey } from '#core/storage-layout.ts';
import { hiddenTestDelivery, issueDelivery, runDelivery, signedDeliveryHeaders } from '../helpers/deliveries.ts';
import { eventually, queueDrained, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

// A space per test that reads what it stored, so no test depends on what another one landed before it.
const config = {
  spaces: {
    Main: { senders: ['mac-studio-1', 'mac-mini-2'] },
    Verbatim: { senders: ['mac-studio-1'] },
    Hosts: { senders: ['mac-pro-3', 'mac-mini-2'] },
    Paging: { senders: ['mac-studio-1'] },
    Landing: { senders: ['mac-studio-1'] },
    Quiet: { senders: ['mac-studio-1', 'twin-a', 'twin-b'] },
    Elsewhere: { senders: ['outsider'] },
    Bound: { senders: ['mac-studio-1'] },
    Replayed: { senders: ['mac-studio-1'] },
    Patient: { senders: ['mac-studio-1'], timestampToleranceSeconds: 900 },
    Migrating: { senders: ['mac-studio-1'], acceptV1Until: '2999-12-31' },
    Migrated: { senders: ['mac-studio-1'], acceptV1Until: '2020-01-01' },
  },
};
const keys = {
  'mac-studio-1': 'k-studio',
  'mac-mini-2': 'k-mini',
  'mac-pro-3': 'k-pro',
  'twin-a': 'same-key',
  'twin-b': 'same-key',
  outsider: 'k-outsider',
};

let local: TestLocalMode;
beforeAll(async () => {
  local = await startTestLocalMode(config, keys, {
    visibilityTimeoutSeconds: 1,
    maxReceiveCount: 2,
    env: { Hosting__ModuleReportSecret: 'fleet-wide-value' },
  });
});
afterAll(() => local.stop());

const getJson = async (path: string) => {
  const res = await fetch(local.url + path);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const runPath = (space: string, id: string) => `/api/spaces/${space}/runs/${encodeURIComponent(id)}`;

async function post(path: string, body: Buffer | string, headers: Record<string, string> = {}, method = 'POST') {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = request(local.url + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          body: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A delivery as replay-push sends it to `space`: signed (v2) now. */
const signed = (value: unknown, key: string, space = 'Quiet', at = new Date()) => {
  const raw = Buffer.from(JSON.stringify(value));
  return { raw, headers: signedDeliveryHeaders(space, raw, key, { at }) };
};

describe('deliveries that reuse one delivery id', () => {
  it('each land when two hosts send different runs under the same id, and an exact replay stores nothing twice', async () => {
    const sharedId = '0b5e7c1e-5a7e-4c7e-9d2a-3f1c2b4a5d6e';
    const pairs = [0, 1, 2].map((n) => ({
      studio: runDelivery({ host: 'mac-studio-1', taskId: `shared-id-${n}` }),
      mini: runDelivery({ host: 'mac-mini-2', model: 'gemma3:27b', taskId: `shared-id-${n}` }),
    }));
    for (const { studio, mini } of pairs) {
      expect((await pushDelivery(local.url, 'Main', studio, keys['mac-studio-1'], sharedId)).status).toBe(202);
      expect((await pushDelivery(local.url, 'Main', mini, keys['mac-mini-2'], sharedId)).status).toBe(202);
      // The same bytes again (a retry): 202 again, and still one row.
      expect((await pushDelivery(local.url, 'Main', mini, keys['mac-mini-2'], sharedId)).status).toBe(202);
    }
    const landed = await eventually(
      async () => {
        const found = await Promise.all(
          pairs
            .flatMap(({ studio, mini }) => [studio, mini])
            .map(async (d) => (await getJson(runPath('Main', d.id))).body),
        );
        return found.every((row) => row.id) && found;
      },
      10_000,
      50,
    );
    expect(landed.map((row) => row.host)).toEqual([
      'mac-studio-1',
      'mac-mini-2',
      'mac-studio-1',
      'mac-mini-2',
      'mac-studio-1',
      'mac-mini-2',
    ]);
    expect(landed.map((row) => (row.deliveries as string[]).length)).toEqual([1, 1, 1, 1, 1, 1]);
  });
});

describe('a signed run delivery', () => {
  // How soon the row is readable is measured by bench/, not asserted here.
  it('is accepted with 202, names ignored keys, and its row becomes readable', async () => {
    const delivery = runDelivery({ judgeVerdict: 'resolved' }, { patch: 'diff --git a/a b/a\n+x\n' });
    const answer = await pushDelivery(local.url, 'Main', delivery, keys['mac-studio-1']);
    expect(answer).toEqual({
      status: 202,
      body: { signature: 'verified', id: delivery.id, status: 'queued', ignored: ['row.judgeVerdict'] },
    });
    const row = await eventually(
      async () => {
        const r = await getJson(runPath('Main', delivery.id));
        return r.status === 200 && r.body;
      },
      5000,
      20,
    );
    expect(row).toMatchObject({
      id: delivery.id,
      space: 'Main',
      judgeVerdict: null,
      steps: 17,
      promptTokens: null,
      patchTruncated: false,
    });
    const patch = await fetch(local.url + runPath('Main', delivery.id) + '/patch');
    expect(await patch.text()).toBe('diff --git a/a b/a\n+x\n');
    expect(await (await fetch(local.url + runPath('Main', delivery.id) + '/summary')).text()).toBe('Changed a to b.');
  });

  it('accepts a base64-free body verbatim: the signature covers the exact bytes, whitespace included', async () => {
    const raw = Buffer.from(
      `{ "kind": "issue",\n  "host": "mac-studio-1", "sentAt": "2026-11-29T08:00:00Z", "issue": ${JSON.stringify(issueDelivery().issue)} }`,
    );
    const answer = await post(
      '/hooks/Verbatim/ingest',
      raw,
      signedDeliveryHeaders('Verbatim', raw, keys['mac-studio-1']),
    );
    expect(answer).toMatchObject({ status: 202, body: { id: 'acme__widgets-42' } });
    await eventually(
      async () => ((await getJson('/api/spaces/Verbatim/issues')).body.issues as unknown[]).length === 1,
    );
  });

  it('lands a hidden-test result on its run and lists the host with its hardware and run count', async () => {
    const delivery = runDelivery({ taskId: 'hidden-1', host: 'mac-pro-3' });
    await pushDelivery(
      local.url,
      'Hosts',
      hiddenTestDelivery(delivery.id, '2026-11-20T10:12:00Z', 'fail', 'mac-pro-3'),
      keys['mac-pro-3'],
    );
    await pushDelivery(local.url, 'Hosts', delivery, keys['mac-pro-3']);
    const row = await eventually(async () => {
      const r = await getJson(runPath('Hosts', delivery.id));
      return r.status === 200 && (r.body.hiddenTestResult as { status: string } | null)?.status === 'fail' && r.body;
    });
    expect(row.hiddenTestResult).toMatchObject({ status: 'fail', total: 3 });
    const { body } = await getJson('/api/spaces/Hosts/hosts');
    expect(body.hosts).toEqual([
      expect.objectContaining({
        host: 'mac-pro-3',
        hostHardware: 'Mac Studio M2 Ultra 192 GB',
        runsLanded: 1,
        paired: true,
        spaces: ['Hosts'],
      }),
      expect.objectContaining({ host: 'mac-mini-2', runsLanded: 0, lastDeliveryAt: null, paired: true }),
    ]);
  });

  it('pages runs and returns deltas with since', async () => {
    for (let i = 0; i < 5; i++)
      await pushDelivery(local.url, 'Paging', runDelivery({ taskId: `page-${i}` }), keys['mac-studio-1']);
    await eventually(
      async () => ((await getJson('/api/spaces/Paging/runs?limit=1000')).body.runs as unknown[]).length === 5,
    );
    const first = await getJson('/api/spaces/Paging/runs?limit=3');
    expect(first.body.runs).toHaveLength(3);
    const second = await getJson(`/api/spaces/Paging/runs?limit=1000&cursor=${first.body.cursor as string}`);
    expect((second.body.runs as unknown[]).length).toBe(2);
    const asOf = first.body.asOf as string;
    const late = runDelivery({ taskId: 'late' });
    await pushDelivery(local.url, 'Paging', late, keys['mac-studio-1']);
    const delta = await eventually(async () => {
      const r = await getJson(`/api/spaces/Paging/runs?since=${encodeURIComponent(asOf)}`);
      return (r.body.runs as { id: string }[]).some((x) => x.id === late.id) && r.body;
    });
    expect((delta.runs as { updatedAt: string }[]).every((r) => r.updatedAt >= asOf)).toBe(true);
  });
});

describe('refused deliveries', () => {
  const valid = runDelivery();
  const cases: [
    string,
    () => Promise<{ status: number; body: Record<string, unknown> }>,
    number,
    Record<string, unknown>,
  ][] = [
    [
      'a missing signature header',
      () => post('/hooks/Quiet/ingest', JSON.stringify(valid)),
      401,
      { signature: 'invalid', error: 'bad-signature' },
    ],
    [
      'a garbled signature header',
      () =>
        post('/hooks/Quiet/ingest', JSON.stringify(valid), {
          ...signed(valid, 'k-studio').headers,
          'x-replay-signature': 'v2,zz',
        }),
      401,
      { signature: 'invalid', error: 'bad-signature' },
    ],
    [
      'a signature by an unknown key',
      () => {
        const s = signed(valid, 'who-knows');
        return post('/hooks/Quiet/ingest', s.raw, s.headers);
      },
      401,
      { signature: 'invalid', error: 'bad-signature' },
    ],
    [
      'a signature by the fleet-wide key',
      () => {
        const s = signed(valid, 'fleet-wide-value');
        return post('/hooks/Quiet/ingest', s.raw, s.headers);
      },
      401,
      { signature: 'invalid', error: 'bad-signature' },
    ],
    [
      'a key configured for two hosts',
      () => {
        const s = signed({ ...valid, host: 'twin-a' }, 'same-key');
        return post('/hooks/Quiet/ingest', s.raw, s.headers);
      },
      401,
      { signature: 'invalid', error: 'bad-signature' },
    ],
    [
      'an unlisted sender',
      () => {
        const s = signed({ ...valid, host: 'outsider' }, 'k-outsider');
        return post('/hooks/Quiet/ingest', s.raw, s.headers);
      },
      403,
      { signature: 'unauthorized', error: 'sender-not-listed' },
    ],
    [
      'a body over 1 MiB',
      () => {
        const s = signed({ ...valid, patch: 'x'.repeat(1024 * 1024) }, 'k-studio');
        return post('/hooks/Quiet/ingest', s.raw, s.headers);
      },
      413,
      { error: 'too-large' },
    ],
    [
      'invalid JSON',
      () => post('/hooks/Quiet/ingest', '{"kind":', signedDeliveryHeaders('Quiet', '{"kind":', 'k-studio')),
      400,
      { signature: 'verified', error: 'invalid-delivery' },
    ],
    [
      'valid JSON of the wrong shape',
      () => {
        const s = signed({ ...valid, row: { ...(valid.row as object), outcome: 'exploded' } }, 'k-studio');
        return post('/hooks/Quiet/ingest', s.raw, s.headers);
      },
      400,
      { signature: 'verified', error: 'invalid-delivery' },
    ],
    [
      'a host mismatch between body and row',
      () => {
        const s = signed({ ...valid, host: 'twin-a' }, 'k-studio');
        return post('/hooks/Quiet/ingest', s.raw, s.headers);
      },
      400,
      { signature: 'verified', error: 'invalid-delivery' },
    ],
    [
      "an id that is not the row's own",
      () => {
        const s = signed({ ...valid, id: 'forged' }, 'k-studio');
        return post('/hooks/Quiet/ingest', s.raw, s.headers);
      },
      400,
      { signature: 'verified', error: 'invalid-delivery' },
    ],
    [
      'an unknown delivery kind',
      () => {
        const s = signed({ kind: 'heartbeat', host: 'mac-studio-1' }, 'k-studio');
        return post('/hooks/Quiet/ingest', s.raw, s.headers);
      },
      400,
      { signature: 'verified', error: 'invalid-delivery' },
    ],
    [
      'an unknown space',
      () => {
        const s = signed(valid, 'k-studio', 'Nowhere');
        return post('/hooks/Nowhere/ingest', s.raw, s.headers);
      },
      404,
      { error: 'unknown-space' },
    ],
    ['the wrong HTTP method', () => post('/hooks/Quiet/ingest', '', {}, 'GET'), 405, { error: 'not-found' }],
    [
      'the wrong path',
      () => {
        const s = signed(valid, 'k-studio');
        return post('/hooks/Quiet/deliver', s.raw, s.headers);
      },
      404,
      { error: 'not-found' },
    ],
    ['a path outside the API', () => post('/submit', '{}'), 404, { error: 'not-found' }],
  ];

  it.each(cases)('answers %s with the specified status and JSON', async (_what, send, status, expected) => {
    const answer = await send();
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject(expected);
    expect(typeof answer.body.message).toBe('string');
  });

  it('explains a wrong shape precisely', async () => {
    const s = signed({ ...valid, row: { ...(valid.row as object), outcome: 'exploded', steps: -2 } }, 'k-studio');
    const answer = await post('/hooks/Quiet/ingest', s.raw, s.headers);
    expect(answer.body.details).toHaveLength(2);
    expect(answer.body.details).toEqual(
      expect.arrayContaining([expect.stringMatching(/^row\.steps: /), expect.stringMatching(/^row\.outcome: /)]),
    );
  });

  it('stores and queues nothing for any of them', async () => {
    for (const [, send] of cases) await send();
    expect(await local.adapters.inbox.list('inbox/Quiet/')).toEqual([]);
    // Had any of them been queued, it would have landed by the time the landing queue is empty.
    await queueDrained(local, 'landing');
    expect(((await getJson('/api/spaces/Quiet/runs')).body.runs as unknown[]).length).toBe(0);
    const hosts = (await getJson('/api/spaces/Quiet/hosts')).body.hosts as { host: string; spaces: string[] }[];
    expect(hosts.every((h) => !h.spaces.includes('Quiet'))).toBe(true);
  });

  it('never echoes a key in an answer', async () => {
    for (const [, send] of cases)
      expect(JSON.stringify((await send()).body)).not.toMatch(/k-studio|same-key|fleet-wide-value|k-outsider/);
  });
});

describe('a signature bound to its space and its hour', () => {
  const runsOf = async (space: string) => (await getJson(`/api/spaces/${space}/runs`)).body.runs as unknown[];
  const issuesOf = async (space: string) => (await getJson(`/api/spaces/${space}/issues`)).body.issues as unknown[];

  it('verifies in no other space: a captured run or issue delivery replayed there is refused and stores nothing', async () => {
    const run = signed(runDelivery({ taskId: 'captured-1' }), keys['mac-studio-1'], 'Bound');
    const issue = signed(issueDelivery({ taskId: 'captured-2' }), keys['mac-studio-1'], 'Bound');
    for (const captured of [run, issue]) {
      expect((await post('/hooks/Bound/ingest', captured.raw, captured.headers)).status).toBe(202);
      expect(await post('/hooks/Replayed/ingest', captured.raw, captured.headers)).toMatchObject({
        status: 401,
        body: { signature: 'invalid', error: 'bad-signature' },
      });
    }
    await eventually(async () => (await runsOf('Bound')).length === 1 && (await issuesOf('Bound')).length === 1);
    await queueDrained(local, 'landing');
    expect(await local.adapters.inbox.list('inbox/Replayed/')).toEqual([]);
    expect([await runsOf('Replayed'), await issuesOf('Replayed')]).toEqual([[], []]);
  });

  it.each([
    ['signed six minutes ago', -360, 'behind'],
    ['signed six minutes ahead', 360, 'ahead of'],
  ])('refuses a delivery %s with 401 stale, saying how far off it is', async (_what, seconds, direction) => {
    const late = signed(
      runDelivery({ taskId: 'late-1' }),
      keys['mac-studio-1'],
      'Bound',
      new Date(Date.now() + seconds * 1000),
    );
    const answer = await post('/hooks/Bound/ingest', late.raw, late.headers);
    expect(answer).toMatchObject({ status: 401, body: { signature: 'invalid', error: 'stale' } });
    expect(answer.body.message).toMatch(
      new RegExp(`^X-Replay-Timestamp is 3(59|60|61) s ${direction} the endpoint's clock; at most 300 s`),
    );
  });

  it("takes a space's own tolerance: six minutes off verifies where 15 are allowed", async () => {
    const late = signed(
      runDelivery({ taskId: 'late-2' }),
      keys['mac-studio-1'],
      'Patient',
      new Date(Date.now() - 360_000),
    );
    expect((await post('/hooks/Patient/ingest', late.raw, late.headers)).status).toBe(202);
    const later = signed(
      runDelivery({ taskId: 'late-3' }),
      keys['mac-studio-1'],
      'Patient',
      new Date(Date.now() - 960_000),
    );
    expect(await post('/hooks/Patient/ingest', later.raw, later.headers)).toMatchObject({
      status: 401,
      body: { error: 'stale' },
    });
  });

  it('takes a v1 signature only in a space whose acceptV1Until has not passed', async () => {
    const v1 = (space: string, taskId: string) => {
      const raw = Buffer.from(JSON.stringify(runDelivery({ taskId })));
      return post(`/hooks/${space}/ingest`, raw, { 'x-hub-signature-256': signV1(raw, keys['mac-studio-1']) });
    };
    expect((await v1('Migrating', 'v1-1')).status).toBe(202);
    for (const [space, window] of [
      ['Migrated', 'ended with 2020-01-01'],
      ['Bound', 'it has none'],
    ] as const) {
      const answer = await v1(space, 'v1-2');
      expect(answer).toMatchObject({ status: 401, body: { signature: 'invalid', error: 'bad-signature' } });
      expect(answer.body.message).toContain(window);
    }
  });
});

describe('the landing queue', () => {
  const corruptKey = inboxKey('Landing', 'corrupt');
  it('drops a malformed message without blocking its batch, and sends a corrupt inbox entry to the DLQ', async () => {
    const sqs = local.emulators.sqs;
    const { landing, landingDlq } = local.emulators.queueUrls;
    await local.adapters.inbox.put(corruptKey, '{"space":"Landing"');
    const good = runDelivery({ taskId: 'after-bad' });
    await sqs.send(new SendMessageCommand({ QueueUrl: landing, MessageBody: 'not json at all' }));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: landing,
        MessageBody: JSON.stringify({ space: 'Landing', inboxKey: corruptKey }),
      }),
    );
    await pushDelivery(local.url, 'Landing', good, keys['mac-studio-1']);
    await eventually(async () => (await getJson(runPath('Landing', good.id))).status === 200, 3000);
    // Drained: the malformed message was dropped or retried to its end, the corrupt entry's likewise.
    await queueDrained(local, 'landing');
    const dead = new Map<string, string>();
    for (;;) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: landingDlq, MaxNumberOfMessages: 10 }),
      );
      if (!Messages.length) break;
      for (const message of Messages) dead.set(message.MessageId!, message.Body ?? '');
    }
    // With a 1 s visibility timeout a slow landing of another test's delivery can be dead-lettered as well.
    const anotherSpacesClaim = (body: string) => /^\{"space":"(?!Landing")/.test(body);
    expect([...dead.values()].filter((body) => !anotherSpacesClaim(body))).toEqual([
      JSON.stringify({ space: 'Landing', inboxKey: corruptKey }),
    ]);
    expect(await local.adapters.inbox.getText(corruptKey)).toBe('{"space":"Landing"');
  });
});

describe('the read API', () => {
  it.each([
    ['/api/spaces/Main/runs?limit=0', 400, 'bad-limit'],
    ['/api/spaces/Main/runs?limit=1001', 400, 'bad-limit'],
    ['/api/spaces/Main/runs?since=yesterday', 400, 'bad-since'],
    ['/api/spaces/Main/runs?cursor=bogus', 400, 'bad-cursor'],
    ['/api/spaces/Main/runs/nope', 404, 'not-found'],
    ['/api/spaces/Main/runs/nope/patch', 404, 'not-found'],
    ['/api/spaces/Nowhere/runs', 404, 'unknown-space'],
    ['/api/spaces/Main/whatever', 404, 'not-found'],
  ])('answers %s with %i %s and a sentence', async (path, status, error) => {
    const answer = await getJson(path);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ error });
    expect(answer.body.message).toMatch(/\.$/);
  });
});
