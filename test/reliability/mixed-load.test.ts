// Every 202 is final, replays change nothing, and no host writes another's data (issue 26), under a mixed load
// against `npm start` as a real process: 2,000 signed deliveries at concurrency 16 from three hosts, with exact
// replays, deliveries of two hosts sharing one delivery id, A/B patch alternation under one (id, finishedAt),
// hidden-test results and issue records sent out of order, and hosts writing to each other's runs and tasks; local
// mode is killed (SIGKILL, its landing mid-batch) and restarted twice while they arrive. It asserts and prints:
// accepted = landed (0 lost), 0 values reverted, judge calls = distinct (run, patch, model) triples, 0 cross-host
// writes: another host's issue record is refused (403 not-owner), another host's run and hidden-test result are
// accepted and kept apart as its foreign attempt (issue 35), never written to the owner's row.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { keyEnvName } from '#shared/key-names.ts';
import { startAnthropicStandIn, type AnthropicStandIn } from '#infra/local/stand-ins/anthropic-stand-in.ts';
import { startGitHubStandIn, type GitHubStandIn } from '#infra/local/stand-ins/github-stand-in.ts';
import { gitHubAppKeyPair, goodAnswer } from '../helpers/judge.ts';
import { eventually } from '../helpers/local-mode.ts';
import { killProcess, startLocalProcess, type LocalProcess } from '../helpers/local-process.ts';
import {
  BASE,
  FORGED_MERGE,
  HOSTS,
  MIX,
  NEW_MERGE,
  OLD_MERGE,
  patchOf,
  planLoad,
  SEEDS,
  TOTAL,
  type Kind,
  type Planned,
} from './helpers/mixed-load-plan.ts';
import { signedDeliveryHeaders } from '../helpers/deliveries.ts';

const CONCURRENCY = 16;
const SPACE = 'Mixed';
const KEYS = Object.fromEntries(HOSTS.map((host) => [host, `mixed-${host}-${randomUUID()}`]));
const KILLS = 2;

let local: LocalProcess;
/** While local mode is being killed and started again: what a sender waits for before it sends again. */
let restarting: Promise<void> | null = null;
let env: Record<string, string>;
let anthropic: AnthropicStandIn;
let github: GitHubStandIn;
let dataRoot: string;
let inboxDir: string;
const answers = new Map<Planned, number>();
const figures = {
  sent: 0,
  accepted: 0,
  landed: 0,
  lost: 0,
  inboxLeft: 0,
  reverted: 0,
  sharedIds: 0,
  sharedIdsLanded: 0,
  forgeries: 0,
  forgeriesRefused: 0,
  forgedIssues: 0,
  /** Another host's runs, each kept apart as that host's foreign attempt of the run id. */
  foreignRuns: 0,
  foreignKept: 0,
  crossHostWrites: 0,
  judgeCalls: 0,
  judgedTriples: 0,
  kills: 0,
  sendSeconds: 0,
  seconds: 0,
};
/** Each accepted delivery that did not land and each record that ends with another value than expected. */
const diagnosis = { lost: [] as Record<string, unknown>[], reverted: [] as Record<string, unknown>[] };
let plan: ReturnType<typeof planLoad>;
const runs = new Map<string, Record<string, unknown>>();
const issues = new Map<string, Record<string, unknown>>();
type AttemptSeen = { patchSha256: string; conflict: boolean; hiddenTestStatus: string | null };
const attempts = new Map<string, AttemptSeen[]>();
/** The attempts of the runs other hosts wrote to. */
const forgedAttempts = new Map<string, (AttemptSeen & { host: string; foreign: boolean })[]>();

/** Sends until an answer that is not a network failure or a 5xx (local mode may be restarting). */
async function send(p: Planned): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(`${local.url}/hooks/${SPACE}/ingest`, {
        method: 'POST',
        // Signed at each attempt, as replay-push signs: a retry after a restart carries a fresh timestamp.
        headers: signedDeliveryHeaders(SPACE, p.body, KEYS[p.host]!, { deliveryId: p.deliveryId }),
        body: new Uint8Array(p.body),
        signal: AbortSignal.timeout(10_000),
      });
      await res.text();
      if (res.status < 500) {
        answers.set(p, res.status);
        figures.sent++;
        if (res.status === 202) figures.accepted++;
        return res.status;
      }
      if (!restarting) throw new Error(`ingest answered ${res.status} while local mode was running`);
    } catch (error) {
      // Refused or reset while local mode is down: sent again once it is back, same bytes, same delivery id.
      if (!restarting) throw error;
    }
    await restarting;
  }
}

async function getJson(path: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${local.url}/api/spaces/${SPACE}${path}`)).json()) as Record<string, unknown>;
}

async function readState() {
  runs.clear();
  let cursor: string | null = null;
  do {
    const page = await getJson(`/runs?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    for (const row of page.runs as Record<string, unknown>[]) runs.set(row.id as string, row);
    cursor = page.cursor as string | null;
  } while (cursor);
  issues.clear();
  for (const record of (await getJson('/issues')).issues as Record<string, unknown>[])
    issues.set(record.taskId as string, record);
}

/** Objects in the inbox bucket's folder (s3rver keeps one file per object), read while the lander deletes some. */
const inboxEntries = (): number =>
  readdirSync(inboxDir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('._S3rver_object'))
    .length;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  const { privateKey, publicKey } = gitHubAppKeyPair();
  anthropic = await startAnthropicStandIn({ apiKey: 'sk-mixed', answer: () => goodAnswer() });
  github = await startGitHubStandIn({ app: { appId: '11', installationId: '22', publicKey } });
  github.setIssue('acme/widgets', 42, { title: 'Widgets crash', body: 'On empty input.' });
  for (const merge of [OLD_MERGE, NEW_MERGE]) github.setCompare('acme/widgets', BASE, merge, patchOf('reference'));
  const dir = (dataRoot = mkdtempSync(join(tmpdir(), 'replay-mixed-')));
  mkdirSync(join(dir, 'keys'));
  for (const host of HOSTS)
    writeFileSync(join(dir, 'keys', keyEnvName('Hosting:ModuleReportSecret', host)), KEYS[host]!);
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ defaultJudgeModel: 'claude-test-judge', spaces: { [SPACE]: { senders: HOSTS } } }),
  );
  inboxDir = join(dir, 'data', 's3', 'replay-inbox');
  env = {
    PORT: String(await freePort()),
    REPLAY_CONFIG: join(dir, 'config.json'),
    REPLAY_DATA_DIR: join(dir, 'data'),
    REPLAY_KEYS_DIR: join(dir, 'keys'),
    REPLAY_SWEEP_SECONDS: '1',
    REPLAY_JUDGE_RETRY_BASE_SECONDS: '1',
    ANTHROPIC_BASE_URL: anthropic.url,
    GITHUB_API_URL: github.url,
    GITHUB_APP_ID: '11',
    GITHUB_APP_INSTALLATION_ID: '22',
    GITHUB_APP_PRIVATE_KEY: privateKey.replaceAll('\n', '\\n'),
  };
  local = await startLocalProcess(env);
  plan = planLoad();
  const started = Date.now();

  // The seeds land first: the runs and tasks the forgeries aim at belong to their hosts before they arrive.
  for (const p of plan.seeds) await send(p);
  await eventually(async () => (await readState(), runs.size === SEEDS && issues.size === SEEDS), 60_000, 250);

  // Sixteen senders take chains in turn; local mode is killed (mid-batch: its landing lags its ingest) and
  // restarted twice along the way. The judge gets its key at the last restart: a judge call killed with the
  // process is made again once its claim lapses (5 minutes, as designed), which this load would count twice.
  const queue = [...plan.chains];
  const mainCount = queue.flat().length;
  const killAt = Array.from({ length: KILLS }, (_, k) => Math.round(((k + 1) * mainCount) / (KILLS + 1)));
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let chain = queue.shift(); chain; chain = queue.shift()) {
        for (const p of chain) {
          await send(p);
          if (figures.sent - SEEDS * 2 >= killAt[figures.kills]! && !restarting) {
            figures.kills++;
            const last = figures.kills === KILLS;
            restarting = killProcess(local).then(async () => {
              local = await startLocalProcess(last ? { ...env, ANTHROPIC_API_KEY: 'sk-mixed' } : env);
              restarting = null;
            });
          }
        }
      }
    }),
  );
  await restarting;
  figures.sendSeconds = Math.round((Date.now() - started) / 100) / 10;

  // Everything accepted has landed once each run holds its expected attempt and every judged task is judged.
  // The inbox is seen empty before the state is read: a landing that ends while the state is being read is then
  // already in it.
  await eventually(
    async () => {
      if (inboxEntries() !== 0) return false;
      await readState();
      const judgedDone = [...runs.values()].filter(
        (r) => plan.judged.has(r.taskId as string) && r.judgeState === 'judged',
      ).length;
      return judgedDone >= plan.judged.size;
    },
    240_000,
    1000,
  );
  for (const id of new Set(plan.chains.filter((c) => c.length === 5).map((c) => c[0]!.target)))
    attempts.set(id, (await getJson(`/runs/${encodeURIComponent(id)}/attempts`)).attempts as never);
  for (const id of new Set(
    plan.chains
      .flat()
      .filter((p) => p.forged && p.kind === 'run')
      .map((p) => p.target),
  ))
    forgedAttempts.set(id, (await getJson(`/runs/${encodeURIComponent(id)}/attempts`)).attempts as never);
  figures.seconds = Math.round((Date.now() - started) / 100) / 10;
  tally();
  console.log(`reliability mixed load: ${JSON.stringify(figures)}`);
  if (diagnosis.lost.length || diagnosis.reverted.length)
    console.log(`reliability mixed load, lost and reverted: ${JSON.stringify(diagnosis, null, 1)}`);
}, 600_000);

afterAll(async () => {
  if (local) await killProcess(local);
  await Promise.all([anthropic?.stop(), github?.stop()]);
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

/** The figures, from the answers and the state read back. */
function tally() {
  const all = [...plan.seeds, ...plan.chains.flat()];
  const accepted = all.filter((p) => answers.get(p) === 202);
  const holds = (p: Planned): boolean => {
    // Another host's run is kept as its foreign attempt; its result waits for that attempt, held (the inbox is empty).
    if (p.forged && p.kind === 'run')
      return (forgedAttempts.get(p.target) ?? []).some(
        (a) => a.foreign && a.host === p.host && a.patchSha256 === p.value,
      );
    if (p.forged && p.kind === 'hidden-test') return true;
    if (p.kind === 'issue') return (issues.get(p.target)?.sentAt as string) >= p.value;
    const row = runs.get(p.target);
    if (p.kind === 'hidden-test') return ((row?.hiddenTestResult as { ranAt: string } | null)?.ranAt ?? '') >= p.value;
    return row?.patchSha256 === p.value || (attempts.get(p.target) ?? []).some((a) => a.patchSha256 === p.value);
  };
  /** What the record a delivery writes to holds now. */
  const held = (kind: Kind, target: string): Record<string, unknown> => {
    if (kind === 'issue') {
      const record = issues.get(target);
      return record ? { sentAt: record.sentAt, mergeSha: record.mergeSha, host: record.host } : { issue: 'none' };
    }
    const row = runs.get(target);
    if (!row) return { row: 'none' };
    const { status, ranAt } = (row.hiddenTestResult as { status: string; ranAt: string } | null) ?? {};
    return {
      host: row.host,
      patchSha256: row.patchSha256,
      hiddenTest: status ? `${status} ${ranAt}` : null,
      attempts: (attempts.get(target) ?? []).map((a) => `${a.patchSha256}${a.conflict ? ' conflict' : ''}`),
    };
  };
  figures.landed = accepted.filter(holds).length;
  figures.lost = accepted.length - figures.landed;
  diagnosis.lost = accepted
    .filter((p) => !holds(p))
    .map((p) => ({
      kind: p.kind,
      target: p.target,
      host: p.host,
      deliveryId: p.deliveryId,
      replayed: all.filter((q) => q.body.equals(p.body)).length,
      expected: p.value,
      holds: held(p.kind, p.target),
    }));
  const hostsById = new Map<string, Set<string>>();
  for (const p of all) hostsById.set(p.deliveryId, (hostsById.get(p.deliveryId) ?? new Set()).add(p.host));
  const shared = all.filter((p) => hostsById.get(p.deliveryId)!.size > 1);
  figures.sharedIds = shared.length;
  figures.sharedIdsLanded = shared.filter((p) => answers.get(p) === 202 && holds(p)).length;
  figures.inboxLeft = inboxEntries();

  // The value each record must end with: the first accepted patch, the result that ran last, the record sent last.
  const expected = new Map<string, string>();
  for (const p of accepted.filter((q) => !q.forged)) {
    const key = `${p.kind} ${p.target}`;
    const known = expected.get(key);
    if (p.kind === 'run') expected.set(key, known ?? p.value);
    else if (!known || p.value > known) expected.set(key, p.value);
  }
  const reverted = [...expected].filter(([key, value]) => {
    const [kind, target] = key.split(' ') as [Kind, string];
    if (kind === 'issue') return issues.get(target)?.sentAt !== value;
    const row = runs.get(target);
    if (kind === 'hidden-test') return (row?.hiddenTestResult as { ranAt: string } | null)?.ranAt !== value;
    return row?.patchSha256 !== value;
  });
  figures.reverted = reverted.length;
  diagnosis.reverted = reverted.map(([key, value]) => {
    const [kind, target] = key.split(' ') as [Kind, string];
    return { kind, target, expected: value, holds: held(kind, target) };
  });

  const forgeries = all.filter((p) => p.forged);
  figures.forgeries = forgeries.length;
  const forgedIssues = forgeries.filter((p) => p.kind === 'issue');
  figures.forgedIssues = forgedIssues.length;
  figures.forgeriesRefused = forgedIssues.filter((p) => answers.get(p) === 403).length;
  const forgedRuns = forgeries.filter((p) => p.kind === 'run');
  figures.foreignRuns = forgedRuns.length;
  figures.foreignKept = forgedRuns.filter((p) => answers.get(p) === 202 && holds(p)).length;
  const ownerOfRun = (id: string) => all.find((p) => p.kind === 'run' && p.target === id && !p.forged)?.host;
  const ownerOfTask = (task: string) => all.find((p) => p.kind === 'issue' && p.target === task && !p.forged)?.host;
  figures.crossHostWrites =
    [...runs.values()].filter(
      (r) =>
        r.host !== ownerOfRun(r.id as string) ||
        (r.hiddenTestResult as { details?: string } | null)?.details === 'forged',
    ).length +
    [...issues.values()].filter(
      (i) => i.mergeSha === FORGED_MERGE || (i.host !== undefined && i.host !== ownerOfTask(i.taskId as string)),
    ).length;

  // Which (run, patch) each judge call was about: the patch's mark names both (the model is the space's one).
  const triples = anthropic.requests.map((r) => /mark-(\d+)-([AB])/.exec(r.userText)?.slice(1).join('-') ?? '?');
  figures.judgeCalls = triples.length;
  figures.judgedTriples = new Set(triples).size;
}

describe('a mixed load with two kills', () => {
  it("sends 2,000 deliveries and accepts every one but another host's issue records, refused with 403 not-owner", () => {
    expect(figures.sent).toBe(TOTAL);
    expect(figures.kills).toBe(KILLS);
    expect(figures.forgedIssues).toBeGreaterThan(0);
    expect(figures.forgeriesRefused).toBe(figures.forgedIssues);
    expect(figures.accepted).toBe(TOTAL - figures.forgedIssues);
  });

  it('lands every accepted delivery: accepted = landed, nothing left in the inbox', () => {
    expect(diagnosis.lost).toEqual([]);
    expect(figures.lost).toBe(0);
    // A tenth of the load reuses another host's delivery id, and each of those lands too.
    expect(figures.sharedIds).toBe(Math.round(TOTAL * MIX.sharedDeliveryIds));
    expect(figures.sharedIdsLanded).toBe(figures.sharedIds);
    expect(figures.landed).toBe(figures.accepted);
    expect(figures.inboxLeft).toBe(0);
  });

  it('reverts no value: the first accepted patch, the last-run result and the last-sent record stand', () => {
    expect(diagnosis.reverted).toEqual([]);
    expect(figures.reverted).toBe(0);
    for (const [id, list] of attempts) {
      expect(runs.get(id)).toMatchObject({ conflictCount: 1, attemptCount: 1 });
      expect(list.filter((a) => a.conflict)).toHaveLength(1);
    }
    expect(attempts.size).toBe(Math.round((TOTAL * MIX.abAlternation) / 4));
  });

  it('makes one judge call per distinct (run, patch, model), and judges every run whose task is known', () => {
    expect(figures.judgeCalls).toBe(figures.judgedTriples);
    expect(figures.judgeCalls).toBeGreaterThanOrEqual(plan.judged.size);
    for (const row of runs.values())
      if (plan.judged.has(row.taskId as string)) expect(row).toMatchObject({ judgeState: 'judged' });
  });

  it('lets no host write to another host’s run or task', () => {
    expect(figures.crossHostWrites).toBe(0);
    expect(figures.foreignRuns).toBeGreaterThan(0);
    expect(figures.foreignKept).toBe(figures.foreignRuns);
  });
});
