// Findings of the second ingest review (issue 26), each reproduced over local mode's HTTP server: what ingest accepts
// can always be stored, a host writes only its own data, later records win and replays change nothing.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pushDelivery } from '#runner/push.ts';
import { startAnthropicStandIn, type AnthropicStandIn } from '#infra/local/stand-ins/anthropic-stand-in.ts';
import { startGitHubStandIn, type GitHubStandIn } from '#infra/local/stand-ins/github-stand-in.ts';
import { hiddenTestDelivery, issueDelivery, runDelivery } from '../helpers/deliveries.ts';
import { gitHubAppKeyPair, goodAnswer } from '../helpers/judge.ts';
import { eventually, queueDrained, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

const config = {
  spaces: {
    Figures: { senders: ['mac-studio-1'] },
    Owned: { senders: ['mac-studio-1', 'mac-mini-2'] },
    Ordered: { senders: ['mac-studio-1'] },
    Replays: { senders: ['mac-studio-1'] },
    Texts: { senders: ['mac-studio-1'] },
    Ids: { senders: ['mac-studio-1'] },
    Late: { senders: ['mac-studio-1'] },
  },
};
const keys = { 'mac-studio-1': 'k-studio', 'mac-mini-2': 'k-mini' };

let local: TestLocalMode;
let anthropic: AnthropicStandIn;
let github: GitHubStandIn;
beforeAll(async () => {
  const { privateKey, publicKey } = gitHubAppKeyPair();
  anthropic = await startAnthropicStandIn({ apiKey: 'sk-local', answer: () => goodAnswer() });
  github = await startGitHubStandIn({ app: { appId: '11', installationId: '22', publicKey } });
  github.setIssue('acme/widgets', 42, { title: 'Widgets crash', body: 'On empty input.' });
  github.setCompare(
    'acme/widgets',
    'a'.repeat(40),
    'b'.repeat(40),
    'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-old\n+b\n',
  );
  const env = {
    ANTHROPIC_API_KEY: 'sk-local',
    ANTHROPIC_BASE_URL: anthropic.url,
    GITHUB_API_URL: github.url,
    GITHUB_APP_ID: '11',
    GITHUB_APP_INSTALLATION_ID: '22',
    GITHUB_APP_PRIVATE_KEY: privateKey,
  };
  local = await startTestLocalMode(config, keys, { visibilityTimeoutSeconds: 1, sweepIntervalSeconds: 0.5, env });
});
afterAll(async () => {
  await local.stop();
  await Promise.all([anthropic.stop(), github.stop()]);
});

const getJson = async (path: string) => {
  const res = await fetch(local.url + path);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const runPath = (space: string, id: string) => `/api/spaces/${space}/runs/${encodeURIComponent(id)}`;

describe('figures the table cannot store', () => {
  it.each([
    ['a wall time beyond 2^53 − 1', runDelivery({ taskId: 'huge', wallSeconds: 1e16 }), 'row.wallSeconds'],
    ['a call time below 1e-130', runDelivery({ taskId: 'tiny', medianCallSeconds: 1e-200 }), 'row.medianCallSeconds'],
    ['a merge time below 1e-130', issueDelivery({ issueToMergeHours: 1e-200 }), 'issue.issueToMergeHours'],
    [
      'a test count beyond 2^53 − 1',
      {
        ...hiddenTestDelivery('x__y__h1', '2026-11-20T10:12:00Z'),
        hiddenTestResult: { status: 'pass', total: 2 ** 53, ranAt: '2026-11-21T09:00:00Z' },
      },
      'hiddenTestResult.total',
    ],
  ])('refuses %s with 400 naming the field, and stores nothing', async (_what, delivery, field) => {
    const answer = await pushDelivery(local.url, 'Figures', delivery, keys['mac-studio-1']);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ signature: 'verified', error: 'invalid-delivery' });
    expect(answer.body.details).toEqual([expect.stringMatching(new RegExp(`^${field.replace('.', '\\.')}: `))]);
    expect(await local.adapters.inbox.list('inbox/Figures/')).toEqual([]);
    await queueDrained(local, 'landing');
    expect((await getJson('/api/spaces/Figures/runs')).body.runs).toEqual([]);
    expect((await getJson('/api/spaces/Figures/issues')).body.issues).toEqual([]);
  });

  it('accepts and lands the figures at either bound', async () => {
    const delivery = runDelivery({ taskId: 'bounds', wallSeconds: 2 ** 53 - 1, medianCallSeconds: 1e-130 });
    expect((await pushDelivery(local.url, 'Figures', delivery, keys['mac-studio-1'])).status).toBe(202);
    await queueDrained(local, 'landing');
    expect((await getJson(runPath('Figures', delivery.id))).body).toMatchObject({
      wallSeconds: 2 ** 53 - 1,
      medianCallSeconds: 1e-130,
    });
  });
});

describe('one host, its own data', () => {
  const notOwner = { status: 403, body: { signature: 'verified', error: 'not-owner' } };

  it("keeps mac-mini-2's run and result for mac-studio-1's run id as a foreign attempt: the row keeps its own, /attempts and /stats show it", async () => {
    const run = runDelivery({ taskId: 'owned-run' });
    await pushDelivery(local.url, 'Owned', run, keys['mac-studio-1']);
    const own = hiddenTestDelivery(run.id, '2026-11-20T10:12:00Z', 'pass');
    expect((await pushDelivery(local.url, 'Owned', own, keys['mac-studio-1'])).status).toBe(202);
    await eventually(async () => (await getJson(runPath('Owned', run.id))).body.hiddenTestResult);
    const rerun = runDelivery({ taskId: 'owned-run', host: 'mac-mini-2', finishedAt: '2026-11-21T00:00:00Z' });
    expect((await pushDelivery(local.url, 'Owned', rerun, keys['mac-mini-2'])).status).toBe(202);
    const theirs = hiddenTestDelivery(run.id, '2026-11-21T00:00:00Z', 'fail', 'mac-mini-2');
    expect((await pushDelivery(local.url, 'Owned', theirs, keys['mac-mini-2'])).status).toBe(202);
    await queueDrained(local, 'landing');
    expect((await getJson(runPath('Owned', run.id))).body).toMatchObject({
      host: 'mac-studio-1',
      finishedAt: '2026-11-20T10:12:00.000Z',
      hiddenTestResult: { status: 'pass' },
      foreignCount: 1,
    });
    expect((await getJson(`${runPath('Owned', run.id)}/attempts`)).body.attempts).toEqual([
      expect.objectContaining({ host: 'mac-mini-2', foreign: true, current: false, hiddenTestStatus: 'fail' }),
      expect.objectContaining({ host: 'mac-studio-1', foreign: false, current: true, hiddenTestStatus: 'pass' }),
    ]);
    const stats = await eventually(async () => {
      const groups = (await getJson('/api/spaces/Owned/stats')).body.groups as { foreign: number }[];
      return groups.length > 0 && groups;
    });
    expect(stats.map((g) => g.foreign)).toEqual([1]);
  });

  it("refuses another host's issue record for a task mac-studio-1 published, and shows who published it", async () => {
    const mine = issueDelivery({ taskId: 'owned-task', mergeSha: 'b'.repeat(40) });
    expect((await pushDelivery(local.url, 'Owned', mine, keys['mac-studio-1'])).status).toBe(202);
    const theirs = issueDelivery({ taskId: 'owned-task', mergeSha: 'c'.repeat(40) }, 'mac-mini-2');
    expect(await pushDelivery(local.url, 'Owned', theirs, keys['mac-mini-2'])).toMatchObject(notOwner);
    await queueDrained(local, 'landing');
    expect((await getJson('/api/spaces/Owned/issues?fields=mergeSha,host')).body.issues).toEqual([
      { taskId: 'owned-task', mergeSha: 'b'.repeat(40), host: 'mac-studio-1' },
    ]);
  });
});

describe('later records win, replays change nothing', () => {
  it('keeps the later issue record when an old delivery is replayed: mergeSha never moves back', async () => {
    const send = (sentAt: string, mergeSha: string, deliveryId?: string) =>
      pushDelivery(
        local.url,
        'Ordered',
        issueDelivery({ taskId: 'ordered-task', mergeSha }, 'mac-studio-1', sentAt),
        keys['mac-studio-1'],
        deliveryId,
      );
    const old = {
      sentAt: '2026-11-20T09:00:00Z',
      mergeSha: 'b'.repeat(40),
      id: '0b0b0b0b-0000-4000-8000-000000000001',
    };
    expect((await send(old.sentAt, old.mergeSha, old.id)).status).toBe(202);
    expect((await send('2026-11-21T09:00:00Z', 'c'.repeat(40))).status).toBe(202);
    await queueDrained(local, 'landing');
    // The old delivery again, byte for byte and under its own delivery id, as a replaying sender would.
    expect((await send(old.sentAt, old.mergeSha, old.id)).status).toBe(202);
    await queueDrained(local, 'landing');
    expect((await getJson('/api/spaces/Ordered/issues?fields=mergeSha,sentAt')).body.issues).toEqual([
      { taskId: 'ordered-task', mergeSha: 'c'.repeat(40), sentAt: '2026-11-21T09:00:00.000Z' },
    ]);
  });

  it('keeps the hidden-test result that ran later when an older one arrives after it', async () => {
    const run = runDelivery({ taskId: 'ordered-run' });
    await pushDelivery(local.url, 'Ordered', run, keys['mac-studio-1']);
    const result = (ranAt: string, status: 'pass' | 'fail') => ({
      ...hiddenTestDelivery(run.id, '2026-11-20T10:12:00Z'),
      hiddenTestResult: { status, ranAt },
    });
    await pushDelivery(local.url, 'Ordered', result('2026-11-21T10:00:00Z', 'pass'), keys['mac-studio-1']);
    await pushDelivery(local.url, 'Ordered', result('2026-11-21T09:00:00Z', 'fail'), keys['mac-studio-1']);
    await queueDrained(local, 'landing');
    expect((await getJson(runPath('Ordered', run.id))).body.hiddenTestResult).toEqual({
      status: 'pass',
      ranAt: '2026-11-21T10:00:00.000Z',
    });
  });
});

describe('two patches for one (run, finishedAt)', () => {
  it('keeps the first accepted patch current and judged once, whatever replays of the pair follow', async () => {
    const key = keys['mac-studio-1'];
    expect((await pushDelivery(local.url, 'Replays', issueDelivery({ taskId: 'replayed' }), key)).status).toBe(202);
    const a = runDelivery(
      { taskId: 'replayed' },
      {
        patch:
          'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-old\n+a-side\n',
      },
    );
    const b = runDelivery(
      { taskId: 'replayed' },
      {
        patch:
          'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-old\n+b-side\n',
      },
    );
    const calls = () => anthropic.requests.filter((r) => JSON.stringify(r).includes('-side')).length;
    const settled = async () => {
      await queueDrained(local, 'landing');
      await queueDrained(local, 'judge');
    };
    expect((await pushDelivery(local.url, 'Replays', a, key)).status).toBe(202);
    await eventually(async () => (await getJson(runPath('Replays', a.id))).body.judgeVerdict, 10_000);
    // Six replays of the pair, each given time to land and be judged, as a sender draining dailyCap would.
    for (const delivery of [b, a, b, a, b, a]) {
      expect((await pushDelivery(local.url, 'Replays', delivery, key)).status).toBe(202);
      await settled();
    }
    expect(calls()).toBe(1);
    const row = (await getJson(runPath('Replays', a.id))).body;
    expect(row).toMatchObject({ judgeVerdict: 'resolved', attemptCount: 1, conflictCount: 1 });
    expect(await (await fetch(`${local.url}${runPath('Replays', a.id)}/patch`)).text()).toContain('+a-side');
    const { attempts } = (await getJson(`${runPath('Replays', a.id)}/attempts`)).body as {
      attempts: { current: boolean; conflict: boolean; judgeVerdict: string | null }[];
    };
    expect(attempts.map(({ current, conflict, judgeVerdict }) => ({ current, conflict, judgeVerdict }))).toEqual([
      { current: true, conflict: false, judgeVerdict: 'resolved' },
      { current: false, conflict: true, judgeVerdict: null },
    ]);
    const stats = (await getJson('/api/spaces/Replays/stats?groupBy=model,harnessVersion')).body.groups as {
      conflicts: number;
    }[];
    expect(stats.map((g) => g.conflicts)).toEqual([1]);
  });
});

describe('text a record may carry', () => {
  it.each([
    [
      'a terminal escape in a short text',
      runDelivery({ taskId: 'esc', modelFamily: 'qwen\u001b[2J' }),
      'row.modelFamily',
    ],
    ['a carriage return in a summary', runDelivery({ taskId: 'cr' }, { summary: 'Done.\r\n' }), 'summary'],
    ['a lone surrogate in a model', runDelivery({ taskId: 'lone-model', model: 'qwen\ud800' }), 'row.model'],
    ['a lone surrogate in a task id', runDelivery({ taskId: 'lone\udc00' }), 'row.taskId'],
    [
      'a lone surrogate in a harness version',
      runDelivery({ taskId: 'lone-h', harnessVersion: 'h\ud800' }),
      'row.harnessVersion',
    ],
  ])('refuses %s with 400 naming the field, and stores nothing', async (_what, delivery, field) => {
    const answer = await pushDelivery(local.url, 'Texts', delivery, keys['mac-studio-1']);
    expect(answer).toMatchObject({ status: 400, body: { signature: 'verified', error: 'invalid-delivery' } });
    // A lone surrogate in an identity is in the run id too, which is named beside it.
    expect(answer.body.details).toContainEqual(expect.stringMatching(new RegExp(`^${field.replace('.', '\\.')}: `)));
    expect(await local.adapters.inbox.list('inbox/Texts/')).toEqual([]);
  });

  it('lands a patch of CRLF files with TABs and page breaks byte for byte', async () => {
    const patch = 'diff --git a/a.cs b/a.cs\n-\tint a;\r\n+\tint b;\r\n+\f\n';
    const delivery = runDelivery({ taskId: 'crlf' }, { patch });
    expect((await pushDelivery(local.url, 'Texts', delivery, keys['mac-studio-1'])).status).toBe(202);
    await queueDrained(local, 'landing');
    expect(await (await fetch(`${local.url}${runPath('Texts', delivery.id)}/patch`)).text()).toBe(patch);
  });
});

describe('identity strings', () => {
  it('land a decomposed and a composed spelling of one model as one run, under the composed id', async () => {
    const decomposed = runDelivery({ taskId: 'nfc', model: 'Qwe\u0301n' });
    const composed = runDelivery({ taskId: 'nfc', model: 'Qw\u00e9n' });
    for (const delivery of [decomposed, composed])
      expect((await pushDelivery(local.url, 'Texts', delivery, keys['mac-studio-1'])).body).toMatchObject({
        id: composed.id,
      });
    await queueDrained(local, 'landing');
    const runs = (await getJson('/api/spaces/Texts/runs')).body.runs as { id: string; model: string }[];
    expect(runs.filter((r) => r.id.includes('nfc'))).toEqual([
      expect.objectContaining({ id: composed.id, model: 'Qw\u00e9n', deliveryCount: 2 }),
    ]);
  });

  it('refuse a zero-width space in a model with 400, and store nothing', async () => {
    const answer = await pushDelivery(local.url, 'Texts', runDelivery({ model: 'qwen\u200b3' }), keys['mac-studio-1']);
    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid-delivery' } });
    expect(answer.body.details).toEqual(expect.arrayContaining([expect.stringMatching(/^row\.model: /)]));
  });
});

describe('two runs, one id (issue 35)', () => {
  it('answers 409 id-collision naming both runs to a run whose id is a landed run of another model', async () => {
    const first = runDelivery({ taskId: 'ids', model: 'coll:8b' });
    const second = runDelivery({ taskId: 'ids', model: 'coll_8b' });
    expect((await pushDelivery(local.url, 'Ids', first, keys['mac-studio-1'])).status).toBe(202);
    await queueDrained(local, 'landing');
    const answer = await pushDelivery(local.url, 'Ids', second, keys['mac-studio-1']);
    expect(answer).toMatchObject({
      status: 409,
      body: {
        signature: 'verified',
        error: 'id-collision',
        stored: { model: 'coll:8b', taskId: 'ids', harnessVersion: 'h2' },
        delivered: { model: 'coll_8b', taskId: 'ids', harnessVersion: 'h2' },
      },
    });
    expect(await local.adapters.inbox.list('inbox/Ids/')).toEqual([]);
    expect((await getJson(runPath('Ids', first.id))).body).toMatchObject({ model: 'coll:8b', deliveryCount: 1 });
  });

  it('refuses a model whose id form holds "__" with 400 naming row.model, and stores nothing', async () => {
    const answer = await pushDelivery(
      local.url,
      'Ids',
      runDelivery({ model: 'm2__acme', taskId: 'x' }),
      keys['mac-studio-1'],
    );
    expect(answer).toMatchObject({ status: 400, body: { details: [expect.stringMatching(/^row\.model: /)] } });
    expect(await local.adapters.inbox.list('inbox/Ids/')).toEqual([]);
  });
});

describe('a run that lands before its issue record', () => {
  it('is judged as soon as the record lands, not at its next look minutes later', async () => {
    const stateOf = async (id: string, state: string) => {
      const row = (await getJson(runPath('Late', id))).body;
      return row.judgeState === state ? row : null;
    };
    const run = runDelivery({ taskId: 'late-record' });
    expect((await pushDelivery(local.url, 'Late', run, keys['mac-studio-1'])).status).toBe(202);
    const waiting = await eventually(() => stateOf(run.id as string, 'waiting-issue'));
    expect(Date.parse(waiting.judgeNextAttemptAt as string) - Date.now()).toBeGreaterThan(60_000);
    const record = issueDelivery({ taskId: 'late-record' }, 'mac-studio-1');
    expect((await pushDelivery(local.url, 'Late', record, keys['mac-studio-1'])).status).toBe(202);
    expect(await eventually(() => stateOf(run.id as string, 'judged'), 10_000)).toMatchObject({
      judgeVerdict: 'resolved',
      judgeAttempts: 1,
    });
  });
});
