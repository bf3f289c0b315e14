// Load and privacy, against one local mode (docs/contract.md §3–§5, §9). Load: 5,000 signed deliveries from 8
// concurrent senders, with 20 % duplicates (a runner's retries: same body, same delivery id), 5 % re-runs
// sent out of order (the later attempt arrives first) and 2 % hostile bodies; every accepted run must land
// exactly once with its latest finishedAt, and every hostile body must be refused. Privacy: after the load
// and a round of judging whose issue texts carry a client's name, no key, no authorisation value and no
// issue text may be found in any log line, row, object, API answer or file of the data folder.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pushDelivery } from '#runner/push.ts';
import { REASON_WITHHELD } from '#core/judge/reason-guard.ts';
import { startAnthropicStandIn, type AnthropicStandIn } from '#infra/local/stand-ins/anthropic-stand-in.ts';
import { startGitHubStandIn, type GitHubStandIn } from '#infra/local/stand-ins/github-stand-in.ts';
import { issueDelivery, runDelivery, signedDeliveryHeaders } from '../helpers/deliveries.ts';
import { goodAnswer } from '../helpers/judge.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

const TOTAL = 5000;
const SENDERS = 8;
const HOSTS = Array.from({ length: SENDERS }, (_, i) => `rack-${i + 1}`);
const KEYS = Object.fromEntries(HOSTS.map((host, i) => [host, `host-key-${i}-${randomUUID()}`]));
const ANTHROPIC_KEY = `sk-ant-${randomUUID()}`;
const ISSUE_TITLE = 'Northwind Traders importer drops every invoice after midnight';
const ISSUE_BODY =
  'Reported by Contoso Pharmaceuticals (contract 7731-ALPHA): the nightly importer silently skips invoices dated after 00:00 UTC.';
const JUDGED_RUNS = 12;
/** A line in the candidate patch that makes the model stand-in quote the issue in its reason. */
const QUOTE_ME = 'quote-the-issue-please';

interface Planned {
  host: string;
  body: Buffer;
  /** The key it is signed with when it is sent (v2 signatures are made at send time). */
  key: string;
  deliveryId: string;
  /** The run it carries, for the expectation; null for a hostile body. */
  run: { id: string; finishedAt: string } | null;
}

/** A small deterministic generator, so a failing mix can be replayed. */
function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function signedPlan(host: string, delivery: Record<string, unknown>, run: Planned['run']): Planned {
  const body = Buffer.from(JSON.stringify(delivery));
  return { host, body, key: KEYS[host]!, deliveryId: randomUUID(), run };
}

/** What every sender sends, in order. Counts are exact: 2 % hostile, 20 % duplicates, 5 % re-runs. */
function planLoad(): { queues: Planned[][]; hostile: number; duplicates: number; reruns: number } {
  const random = prng(11);
  const hostile = Math.round(TOTAL * 0.02);
  const duplicates = Math.round(TOTAL * 0.2);
  const reruns = Math.round(TOTAL * 0.05);
  const firsts = TOTAL - hostile - duplicates - reruns;
  const queues: Planned[][] = HOSTS.map(() => []);
  const originals: { queue: number; planned: Planned }[] = [];
  for (let i = 0; i < firsts; i++) {
    const q = i % SENDERS;
    const host = HOSTS[q]!;
    const finishedAt = new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString();
    const delivery = runDelivery(
      { host, taskId: `load-${i}`, finishedAt, steps: i % 50 },
      { patch: `diff --git a/f${i} b/f${i}\n+change ${i}\n` },
    );
    const planned = signedPlan(host, delivery, { id: delivery.id as string, finishedAt });
    queues[q]!.push(planned);
    originals.push({ queue: q, planned });
  }
  // Re-runs out of order: the later attempt goes to the front of its sender's queue, before the original.
  for (let i = 0; i < reruns; i++) {
    const { queue, planned } = originals[i * 7]!;
    const row = JSON.parse(planned.body.toString()) as { row: Record<string, unknown> };
    const finishedAt = new Date(Date.parse(planned.run!.finishedAt) + 3_600_000).toISOString();
    const delivery = runDelivery({ ...row.row, finishedAt }, { patch: `diff --git a/r${i} b/r${i}\n+rerun ${i}\n` });
    queues[queue]!.unshift(signedPlan(planned.host, delivery, { id: planned.run!.id, finishedAt }));
  }
  // Duplicates: a runner's retry of a delivery it sent, same bytes and delivery id, later in its queue.
  for (let i = 0; i < duplicates; i++) {
    const { queue, planned } = originals[Math.floor(random() * originals.length)]!;
    const at = queues[queue]!.indexOf(planned);
    queues[queue]!.splice(at + 1 + Math.floor(random() * (queues[queue]!.length - at)), 0, { ...planned });
  }
  for (let i = 0; i < hostile; i++) {
    const q = i % SENDERS;
    const host = HOSTS[q]!;
    const valid = runDelivery({ host, taskId: `hostile-${i}` });
    const kinds: Planned[] = [
      signedPlan(host, { ...valid, id: `forged-${i}` }, null),
      signedPlan(host, { ...valid, row: { ...(valid.row as object), outcome: 'exploded' } }, null),
      signedPlan(host, { kind: 'run', host, nested: JSON.parse('['.repeat(500) + ']'.repeat(500)) as unknown }, null),
      {
        host,
        body: Buffer.from('{"kind":"run",'),
        key: KEYS[host]!,
        deliveryId: randomUUID(),
        run: null,
      },
      { ...signedPlan(host, valid, null), key: 'not-a-paired-key' },
      { ...signedPlan(host, { ...valid, host: HOSTS[(q + 1) % SENDERS] }, null) },
    ];
    queues[q]!.splice(Math.floor(random() * queues[q]!.length), 0, kinds[i % kinds.length]!);
  }
  return { queues, hostile, duplicates, reruns };
}

let local: TestLocalMode;
let anthropic: AnthropicStandIn;
let github: GitHubStandIn;
let privateKey: string;
const captured: string[] = [];
const apiAnswers: string[] = [];
const figures = {
  sent: 0,
  accepted: 0,
  refused: 0,
  hostileRefused: 0,
  hostile: 0,
  duplicates: 0,
  reruns: 0,
  runs: 0,
  landed: 0,
  seconds: 0,
  deliveriesPerSecond: 0,
};
let expected = new Map<string, { finishedAt: string; deliveryId: string }>();
const landedRows: Record<string, unknown>[] = [];
const restore: (() => void)[] = [];

/** Keeps every line the process writes (the handlers' Powertools logs included) for the privacy scan. */
function captureOutput() {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => (stream.write = write));
  }
}

async function getJson(path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${local.url}${path}`);
  const text = await res.text();
  apiAnswers.push(text);
  return JSON.parse(text) as Record<string, unknown>;
}

async function allRuns(space: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const page = await getJson(`/api/spaces/${space}/runs?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    rows.push(...(page.runs as Record<string, unknown>[]));
    cursor = page.cursor as string | null;
  } while (cursor);
  return rows;
}

beforeAll(async () => {
  captureOutput();
  const pair = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  privateKey = pair.privateKey;
  anthropic = await startAnthropicStandIn({
    apiKey: ANTHROPIC_KEY,
    // Half the answers quote the issue in their reason, as a model may; those reasons must be withheld.
    answer: (request) =>
      JSON.stringify(request).includes(QUOTE_ME)
        ? goodAnswer({ reason: `As the issue says: ${ISSUE_BODY}` })
        : goodAnswer(),
  });
  github = await startGitHubStandIn({ app: { appId: '11', installationId: '22', publicKey: pair.publicKey } });
  github.setIssue('acme/widgets', 42, { title: ISSUE_TITLE, body: ISSUE_BODY });
  github.setCompare('acme/widgets', 'a'.repeat(40), 'b'.repeat(40), 'diff --git a/src/widget.ts b/src/widget.ts\n+b\n');
  const env = {
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    ANTHROPIC_BASE_URL: anthropic.url,
    GITHUB_API_URL: github.url,
    GITHUB_APP_ID: '11',
    GITHUB_APP_INSTALLATION_ID: '22',
    GITHUB_APP_PRIVATE_KEY: privateKey,
    // Every line a handler logs about each delivery and attempt (DEBUG adds only the judge's waiting notes).
    POWERTOOLS_LOG_LEVEL: 'INFO',
  };
  local = await startTestLocalMode(
    {
      defaultJudgeModel: 'claude-test-judge',
      spaces: { Load: { senders: HOSTS }, Judged: { senders: [HOSTS[0]!], repos: ['acme/widgets'] } },
    },
    KEYS,
    { env, pollers: 4, sweepIntervalSeconds: 1, log: (line) => captured.push(line) },
  );

  // Load: 8 senders, each sending its own queue in order, all at once.
  const plan = planLoad();
  Object.assign(figures, { hostile: plan.hostile, duplicates: plan.duplicates, reruns: plan.reruns });
  const started = Date.now();
  await Promise.all(
    plan.queues.map(async (queue) => {
      for (const planned of queue) {
        const res = await fetch(`${local.url}/hooks/Load/ingest`, {
          method: 'POST',
          headers: signedDeliveryHeaders('Load', planned.body, planned.key, { deliveryId: planned.deliveryId }),
          body: new Uint8Array(planned.body),
        });
        const text = await res.text();
        apiAnswers.push(text);
        figures.sent++;
        if (res.status === 202) {
          figures.accepted++;
          if (planned.run) {
            const known = expected.get(planned.run.id);
            if (!known || planned.run.finishedAt > known.finishedAt)
              expected.set(planned.run.id, { finishedAt: planned.run.finishedAt, deliveryId: planned.deliveryId });
          }
        } else {
          figures.refused++;
          if (!planned.run && res.status >= 400 && res.status < 500) figures.hostileRefused++;
        }
      }
    }),
  );
  figures.runs = expected.size;
  await eventually(async () => (await allRuns('Load')).length >= expected.size, 240_000, 1000);
  landedRows.push(...(await allRuns('Load')));
  figures.landed = landedRows.length;
  figures.seconds = Math.round((Date.now() - started) / 100) / 10;
  figures.deliveriesPerSecond = Math.round(figures.sent / figures.seconds);
  expected = new Map(expected);

  // Judging: runs whose issue text names clients, half of them answered with a reason quoting it.
  for (let i = 0; i < JUDGED_RUNS; i++) {
    const taskId = i % 2 ? `quoting-${i}` : `clean-${i}`;
    expect(
      (await pushDelivery(local.url, 'Judged', issueDelivery({ taskId }, HOSTS[0]), KEYS[HOSTS[0]!]!)).status,
    ).toBe(202);
    const patch = [
      'diff --git a/src/widget.ts b/src/widget.ts',
      '--- a/src/widget.ts',
      '+++ b/src/widget.ts',
      '@@ -1 +1 @@',
      '-old',
      `+${i % 2 ? QUOTE_ME : 'fix'}`,
      '',
    ].join('\n');
    expect(
      (await pushDelivery(local.url, 'Judged', runDelivery({ host: HOSTS[0], taskId }, { patch }), KEYS[HOSTS[0]!]!))
        .status,
    ).toBe(202);
  }
  await eventually(
    async () => (await allRuns('Judged')).filter((r) => r.judgeVerdict).length === JUDGED_RUNS,
    60_000,
    250,
  );
  console.log(`reliability load: ${JSON.stringify(figures)}`);
}, 600_000);

afterAll(async () => {
  await local?.stop();
  await Promise.all([anthropic?.stop(), github?.stop()]);
  for (const undo of restore) undo();
});

describe('under load', () => {
  it('accepts every delivery but the hostile ones, and refuses every hostile one with a 4xx', () => {
    expect(figures.sent).toBe(TOTAL);
    expect(figures.hostileRefused).toBe(figures.hostile);
    expect(figures.refused).toBe(figures.hostile);
    expect(figures.accepted).toBe(TOTAL - figures.hostile);
  });

  it('lands every accepted run exactly once, with its latest finishedAt and only the delivery that carried it', () => {
    expect(landedRows).toHaveLength(expected.size);
    expect(new Set(landedRows.map((r) => r.id)).size).toBe(expected.size);
    const wrong = landedRows.filter((row) => {
      const want = expected.get(row.id as string);
      return (
        !want ||
        row.finishedAt !== want.finishedAt ||
        JSON.stringify(row.deliveries) !== JSON.stringify([want.deliveryId])
      );
    });
    expect(wrong.map((r) => r.id)).toEqual([]);
  });

  it('leaves nothing in the inbox once everything has landed', async () => {
    await eventually(async () => (await local.adapters.inbox.list('inbox/')).length === 0, 30_000, 250);
  });
});

describe('secrets and privacy after load and judging', () => {
  const secrets = () => [...Object.values(KEYS), ANTHROPIC_KEY, privateKey.split('\n')[1]!, 'fleet-wide-value'];
  const issueText = [ISSUE_TITLE, ISSUE_BODY, 'Northwind Traders', 'Contoso Pharmaceuticals', '7731-ALPHA'];
  const findIn = (haystack: string) => [...secrets(), ...issueText].filter((needle) => haystack.includes(needle));

  it('withheld every judge reason that quoted the issue', async () => {
    const rows = await allRuns('Judged');
    expect(rows).toHaveLength(JUDGED_RUNS);
    for (const row of rows)
      expect(row.judgeReason).toBe(
        String(row.taskId).startsWith('quoting') ? REASON_WITHHELD : 'Fixes the null check like the reference.',
      );
  });

  it('finds no key and no issue text in any log line', () => {
    expect(captured.length).toBeGreaterThan(0);
    expect(findIn(captured.join('\n'))).toEqual([]);
  });

  it('finds none in any API answer, row, issue or host record', async () => {
    for (const space of ['Load', 'Judged']) {
      await allRuns(space);
      await getJson(`/api/spaces/${space}/issues`);
      await getJson(`/api/spaces/${space}/hosts`);
    }
    expect(findIn(apiAnswers.join('\n'))).toEqual([]);
  });

  // Every object is also a file of the data folder (scanned below); here the judged space's objects and the
  // reference cache are read back through the S3 API, as the pipeline reads them.
  it("finds none in the judged runs' objects (patches, summaries, audits) or the reference cache", async () => {
    const keys = [
      ...(await local.adapters.data.list('runs/Judged/')),
      ...(await local.adapters.data.list('reference/')),
    ];
    expect(keys.some((k) => k.includes('/judge-'))).toBe(true);
    for (const key of keys)
      expect({ key, found: findIn((await local.adapters.data.getText(key)) ?? '') }).toEqual({ key, found: [] });
  });

  it('finds none in any file of the data folder', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk(local.dataDir);
    const keysDir = local.keysDir;
    const found = files
      .filter((f) => !f.startsWith(keysDir))
      .map((file) => ({ file, found: findIn(readFileSync(file).toString('latin1')) }));
    expect(found.filter((f) => f.found.length)).toEqual([]);
  });
});
