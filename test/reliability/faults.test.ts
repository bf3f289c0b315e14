// Faults at every adapter boundary (docs/contract.md §3–§5): an object put, a queue send, a table write or a secret
// read that fails or never returns, a judge or GitHub call that fails or hangs, and the lander killed
// between any two steps. After the failure, the runner's retry or the queue's redelivery must end in exactly
// the state a fault-free run reaches. Everything runs against the real emulators and stand-ins; faults are
// injected by a proxy in front of the real adapters (the technique of test/adapters/landing.test.ts, with
// hangs added: a call that never returns is a function killed by its timeout).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { acceptDelivery, type IngestDeps } from '#core/ingest/accept-delivery.ts';
import { landInboxEntry, type LandingDeps } from '#core/landing/land.ts';
import { judgeRun, CLAIM_SECONDS } from '#core/judge/judge-run.ts';
import { parseConfig } from '#schema/config.ts';
import { LANDING_MESSAGE_MAX_BYTES } from '#schema/messages.ts';
import type { KeySource, LandingMessage, MessageQueue } from '#core/ports.ts';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { createLanderHandler } from '#functions/lander/handler.ts';
import { instrumentation } from '#adapters/aws/observability.ts';
import { pollQueue } from '#infra/local/queue-poller.ts';
import { hiddenTestDelivery, issueDelivery, runDelivery, signedDeliveryHeaders } from '../helpers/deliveries.ts';
import { goodAnswer, startJudgeWorld, type JudgeWorld } from '../helpers/judge.ts';
import { RecordingQueue } from '../helpers/in-memory-ports.ts';
import { eventually } from '../helpers/local-mode.ts';
import { inboxKey } from '#core/storage-layout.ts';

type Fault = 'throws' | 'hangs';

/** Fails (or hangs) the `at`-th call made through any of the wrapped adapters; every other call goes through. */
class FaultPlan {
  calls = 0;
  private hangStarted = () => {};
  /** Settles when the plan's hang is injected: the moment the function starts waiting for its timeout. */
  readonly hung = new Promise<void>((resolve) => {
    this.hangStarted = resolve;
  });
  constructor(
    readonly at: number,
    readonly fault: Fault,
  ) {}

  wrap<T extends object>(target: T, only?: string[]): T {
    return new Proxy(target, {
      get: (obj, prop, receiver) => {
        const value = Reflect.get(obj, prop, receiver);
        if (typeof value !== 'function' || (only && !only.includes(String(prop)))) return value;
        return (...args: unknown[]) => {
          if (this.calls++ === this.at) {
            if (this.fault === 'throws') return Promise.reject(new Error(`injected fault in ${String(prop)}`));
            this.hangStarted();
            return new Promise(() => {});
          }
          return (value as (...a: unknown[]) => unknown).apply(obj, args);
        };
      },
    });
  }
}

const NEVER = new Promise<void>(() => {});

/**
 * Runs `work`; a hang counts as the function being killed by its timeout, 200 ms after the hang began (the
 * calls still in flight beside it settle first). Work that does not hang runs to its end, however slow the
 * machine.
 */
async function survive(
  work: Promise<unknown>,
  hung: Promise<void> = NEVER,
): Promise<'completed' | 'failed' | 'killed'> {
  const killed = hung.then(() => new Promise<'killed'>((resolve) => setTimeout(() => resolve('killed'), 200)));
  return Promise.race([
    work.then(
      () => 'completed' as const,
      () => 'failed' as const,
    ),
    killed,
  ]);
}

let w: JudgeWorld;
const CONFIG = { defaultJudgeModel: 'claude-test-judge', spaces: {} as Record<string, unknown> };
const SPACES = Array.from({ length: 40 }, (_, i) => `fault-${i}`);
for (const space of [...SPACES, 'clean-land', 'clean-judge', 'ingest', 'poison', ...SPACES.map((s) => `judge-${s}`)])
  CONFIG.spaces[space] = { senders: ['mac-studio-1'] };

beforeAll(async () => {
  w = await startJudgeWorld(CONFIG);
  w.github.setIssue('acme/widgets', 42, { title: 'Widgets crash', body: 'It crashes.' });
  w.github.setCompare(
    'acme/widgets',
    'a'.repeat(40),
    'b'.repeat(40),
    'diff --git a/src/widget.ts b/src/widget.ts\n+b\n',
  );
}, 60_000);
afterAll(() => w.stop());

// One campaign of deliveries touching every landing path: a run, its re-run, a late duplicate of the first,
// an issue record and a hidden-test result that arrives before its run.
const first = runDelivery({ finishedAt: '2026-11-20T10:00:00Z' }, { patch: 'diff --git a/a b/a\n+1\n' });
const rerun = runDelivery({ finishedAt: '2026-11-21T10:00:00Z' }, { patch: 'diff --git a/a b/a\n+2\n' });
const campaign = [hiddenTestDelivery(rerun.id as string, '2026-11-21T10:00:00Z'), issueDelivery(), first, rerun, first];

async function landCampaign(space: string, deps: (step: number) => LandingDeps, hung?: Promise<void>): Promise<void> {
  for (const [step, delivery] of campaign.entries()) {
    const key = `inbox/${space}/d-${step}.json`;
    const entry = {
      space,
      deliveryId: `d-${step}`,
      receivedAt: `2026-11-29T11:00:0${step}.000Z`,
      host: 'mac-studio-1',
      delivery,
    };
    await w.stores.inbox.put(key, JSON.stringify(entry));
    // At-least-once delivery: the queue redelivers until a landing completes.
    for (let attempt = 0; ; attempt++) {
      if ((await survive(landInboxEntry(deps(attempt), key), attempt === 0 ? hung : undefined)) === 'completed') break;
      if (attempt > 5) throw new Error(`landing ${key} never completed`);
    }
  }
}

const landingDeps = (wrap: <T extends object>(t: T) => T = (t) => t): LandingDeps => ({
  runs: wrap(w.stores.store),
  issues: wrap(w.stores.store),
  hosts: wrap(w.stores.store),
  attempts: wrap(w.stores.store),
  objects: wrap(w.stores.data),
  inbox: wrap(w.stores.inbox),
  judgeQueue: wrap(new RecordingQueue()),
  clock: { now: () => new Date('2026-11-29T12:00:00.000Z') },
});

async function landedState(space: string) {
  const run = (await w.stores.store.getRun(space, rerun.id as string))!.value;
  const normalise = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll(space, 'SPACE')) as unknown;
  return {
    row: normalise(run),
    issue: normalise(await w.stores.store.getIssue(space, 'acme__widgets-42')),
    host: normalise((await w.stores.store.getHost(space, 'mac-studio-1'))?.value),
    objects: (await w.stores.data.list(`runs/${space}/`)).map((k) => k.replace(space, 'SPACE')).sort(),
    inbox: await w.stores.inbox.list(`inbox/${space}/`),
  };
}

describe('landing with a fault at any adapter call', () => {
  it('ends, after redelivery, in the state of a fault-free landing, for every call that throws or hangs', async () => {
    await landCampaign('clean-land', () => landingDeps());
    const expected = await landedState('clean-land');
    expect(expected.inbox).toEqual([]);
    // Count the calls of a clean landing, then put the fault at each of them in turn.
    const counter = new FaultPlan(-1, 'throws');
    const countingSpace = SPACES[0]!;
    await landCampaign(countingSpace, () => landingDeps((t) => counter.wrap(t)));
    const calls = counter.calls;
    expect(calls).toBeGreaterThan(20);
    let faults = 0;
    for (let at = 0; at < calls; at++) {
      for (const fault of ['throws', 'hangs'] as const) {
        const space = SPACES[1 + (faults % (SPACES.length - 1))]!;
        const plan = new FaultPlan(at, fault);
        await landCampaign(
          space,
          (attempt) => (attempt === 0 ? landingDeps((t) => plan.wrap(t)) : landingDeps()),
          plan.hung,
        );
        expect({ at, fault, state: await landedState(space) }).toEqual({ at, fault, state: expected });
        faults++;
        for (const key of await w.stores.data.list(`runs/${space}/`)) await w.stores.data.delete(key);
      }
    }
    console.log(`reliability faults: landing survived ${faults} injected faults over ${calls} adapter calls`);
  }, 300_000);
});

describe('ingest with a fault at the inbox, the queue, a key read or the run read', () => {
  const config = parseConfig({ spaces: { ingest: { senders: ['mac-studio-1'] } } });
  const keys: KeySource = { keysFor: async () => ['k-studio'] };
  const body = Buffer.from(JSON.stringify(runDelivery({ taskId: 'ingest-fault' })));
  const now = new Date('2026-11-29T12:00:00.000Z');
  const request = {
    space: 'ingest',
    rawBody: body,
    headers: signedDeliveryHeaders('ingest', body, 'k-studio', {
      deliveryId: '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
      at: now,
    }),
  };

  /**
   * Delivers `request` with `method` failing once on whichever port has it, which must not be answered 202, then
   * again without the fault, as the runner's retry, which must; returns the queue both sent to.
   */
  async function failThenRetry(method: string, more: Partial<IngestDeps> = {}) {
    const queue = new RecordingQueue() as unknown as MessageQueue<LandingMessage> & { sent: LandingMessage[] };
    const plan = new FaultPlan(0, 'throws');
    const deps = (faulty: boolean): IngestDeps => ({
      config,
      keys: faulty ? plan.wrap(keys, [method]) : keys,
      inbox: faulty ? plan.wrap(w.stores.inbox, [method]) : w.stores.inbox,
      landingQueue: faulty ? plan.wrap(queue, [method]) : queue,
      runs: faulty ? plan.wrap(w.stores.store, [method]) : w.stores.store,
      issueOwners: w.stores.store,
      clock: { now: () => now },
      ...more,
    });
    const failed = await acceptDelivery(deps(true), request).then(
      (a) => a.status,
      () => 'threw',
    );
    expect(failed).not.toBe(202);
    expect((await acceptDelivery(deps(false), request)).status).toBe(202);
    return queue;
  }

  it.each([
    ['the inbox put', 'putIfAbsent'],
    ['the queue send', 'send'],
    ['the key read', 'keysFor'],
    ["the run row's read", 'getRun'],
  ])(
    "never answers 202 when %s fails, and the runner's retry leaves exactly one queued delivery",
    async (_what, method) => {
      const queue = await failThenRetry(method);
      const sent = new Set(queue.sent.map((m) => m.inboxKey));
      expect(sent.size).toBe(1);
      expect(await w.stores.inbox.getText([...sent][0]!)).not.toBeNull();
    },
  );

  it.each([
    ['the queue send', 'send'],
    ['the key read', 'keysFor'],
    ["the run row's read", 'getRun'],
  ])(
    'never answers 202 when %s fails for a delivery that travels in its message, and the retry queues it once',
    async (_what, method) => {
      const inboxBefore = await w.stores.inbox.list('inbox/ingest/');
      const queue = await failThenRetry(method, { landingMessageMaxBytes: LANDING_MESSAGE_MAX_BYTES });
      const { id } = JSON.parse(body.toString('utf8')) as { id: string };
      expect(queue.sent).toEqual([
        {
          space: 'ingest',
          deliveryId: '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
          entry: expect.objectContaining({ delivery: expect.objectContaining({ id }) }),
        },
      ]);
      expect(await w.stores.inbox.list('inbox/ingest/')).toEqual(inboxBefore);
    },
  );
});

describe('the judge with a fault at the model, GitHub, the table or the audit write', () => {
  const judgeFaults: [
    string,
    (deps: ReturnType<JudgeWorld['deps']>, plan: FaultPlan) => ReturnType<JudgeWorld['deps']>,
  ][] = [
    ['the model call', (d, plan) => ({ ...d, model: async () => plan.wrap((await d.model())!) })],
    ['a GitHub call', (d, plan) => ({ ...d, reference: async () => plan.wrap((await d.reference())!) })],
    ['a table write', (d, plan) => ({ ...d, runs: plan.wrap(d.runs, ['putRun']) })],
    ['the audit write', (d, plan) => ({ ...d, objects: plan.wrap(d.objects, ['put']) })],
  ];

  async function judgeToTheEnd(
    space: string,
    faulty?: (deps: ReturnType<JudgeWorld['deps']>) => ReturnType<JudgeWorld['deps']>,
    hung?: Promise<void>,
  ) {
    await w.putIssue(space, 'acme__widgets-42');
    const message = await w.land(space);
    const first = await survive(judgeRun(faulty ? faulty(w.deps()) : w.deps(), message), hung);
    // The sweeper re-sends a row once it is due again: after a failed attempt's backoff or a dead claim.
    for (let i = 0; i < 3; i++) {
      const row = (await w.stores.store.getRun(space, message.id))!.value;
      if (row.judgeVerdict) break;
      w.advance(Math.max(CLAIM_SECONDS, 900 * 2 ** i) + 1);
      await judgeRun(w.deps(), { ...message });
    }
    const row = (await w.stores.store.getRun(space, message.id))!.value;
    return {
      first,
      verdict: {
        judgeVerdict: row.judgeVerdict,
        judgeReason: row.judgeReason,
        judgeState: row.judgeState,
        judgeSameFilesComputed: row.judgeSameFilesComputed,
      },
    };
  }

  it('reaches the verdict of a fault-free run, whichever call throws or hangs', async () => {
    w.answer = () => goodAnswer();
    const clean = await judgeToTheEnd('clean-judge');
    expect(clean.verdict.judgeVerdict).toBe('resolved');
    let n = 0;
    for (const [what, inject] of judgeFaults) {
      for (const fault of ['throws', 'hangs'] as const) {
        const space = `judge-${SPACES[n++]!}`;
        const plan = new FaultPlan(0, fault);
        const outcome = await judgeToTheEnd(space, (deps) => inject(deps, plan), plan.hung);
        expect({ what, fault, verdict: outcome.verdict }).toEqual({ what, fault, verdict: clean.verdict });
      }
    }
    console.log(
      `reliability faults: the judge survived ${n} injected faults (model, GitHub, table write, audit write; thrown and hung)`,
    );
  }, 120_000);
});

describe('poison messages on the landing queue', () => {
  it('reach the dead-letter queue after their retries, without holding back the good records of their batch', async () => {
    const { sqs, queueUrls } = w.stores.emulators;
    const poisonKey = inboxKey('poison', 'corrupt');
    await w.stores.inbox.put(poisonKey, '{"space":"poison"');
    const good = runDelivery({ taskId: 'after-poison' });
    const goodKey = inboxKey('poison', 'good');
    await w.stores.inbox.put(
      goodKey,
      JSON.stringify({
        space: 'poison',
        deliveryId: 'good',
        receivedAt: '2026-11-29T11:00:00.000Z',
        host: 'mac-studio-1',
        delivery: good,
      }),
    );
    for (const body of [
      JSON.stringify({ space: 'poison', inboxKey: poisonKey }),
      'not json at all',
      JSON.stringify({ space: 'poison', inboxKey: goodKey }),
    ]) {
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrls.landing, MessageBody: body }));
    }
    const lander = createLanderHandler(
      landingDeps(),
      instrumentation('lander', { logLevel: 'ERROR', publishMetrics: false }),
    );
    const poller = pollQueue(sqs, queueUrls.landing, lander, { concurrency: 1, onError: () => {} });
    try {
      const landed = async () => (await w.stores.store.getRun('poison', good.id as string)) !== null;
      expect(await eventually(landed)).toBe(true);
      const dead = await eventually(async () => {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrls.landingDlq, WaitTimeSeconds: 1 }),
        );
        return Messages.length ? Messages.map((m) => m.Body!) : null;
      }, 45_000);
      expect(dead).toEqual([JSON.stringify({ space: 'poison', inboxKey: poisonKey })]);
      expect(await w.stores.inbox.getText(poisonKey)).toBe('{"space":"poison"');
    } finally {
      await poller.stop();
    }
  }, 60_000);
});
