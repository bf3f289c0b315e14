// Deliveries through the SQS wire emulator, which refuses in a message body what SQS refuses (U+FFFE, U+FFFF)
// and, unlike AWS, characters beyond the Basic Multilingual Plane: every text a delivery may hold comes back from
// the queue as it was sent, and ingest weighs a delivery by the body it sends, not by its JSON.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { acceptDelivery, type IngestDeps } from '#core/ingest/accept-delivery.ts';
import { SqsQueue } from '#adapters/aws/sqs-queue.ts';
import { parseConfig } from '#schema/config.ts';
import { LANDING_MESSAGE_MAX_BYTES, landingMessageSchema, type LandingMessage } from '#schema/messages.ts';
import type { JudgeMessage } from '#core/ports.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';
import { runDelivery, signedDeliveryHeaders } from '../helpers/deliveries.ts';
import { InMemoryKeySource, SettableClock } from '../helpers/in-memory-ports.ts';

const KEY = 'studio-key-0123456789abcdef0123456789';
const NOW = new Date('2026-12-07T08:00:00Z');
let t: TestStores;
beforeAll(async () => {
  t = await startTestStores();
});
afterAll(async () => {
  await t.stop();
});

const clock = new SettableClock(NOW);
const deps = (): IngestDeps => ({
  config: parseConfig({ spaces: { Main: { senders: ['mac-studio-1'] } } }),
  keys: new InMemoryKeySource({ 'Hosting:ModuleReportSecret:mac-studio-1': [KEY] }),
  inbox: t.inbox,
  landingQueue: new SqsQueue<LandingMessage>(t.emulators.sqs, t.emulators.queueUrls.landing),
  landingMessageMaxBytes: LANDING_MESSAGE_MAX_BYTES,
  runs: t.store,
  issueOwners: t.store,
  clock,
});
const send = (delivery: object) => {
  const rawBody = Buffer.from(JSON.stringify(delivery));
  return acceptDelivery(deps(), {
    space: 'Main',
    rawBody,
    headers: signedDeliveryHeaders('Main', rawBody, KEY, { at: clock.now() }),
  });
};
async function landingMessage(): Promise<LandingMessage> {
  const { Messages } = await t.emulators.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: t.emulators.queueUrls.landing, WaitTimeSeconds: 1 }),
  );
  expect(Messages).toHaveLength(1);
  return landingMessageSchema.parse(JSON.parse(Messages![0]!.Body!));
}
const patchAdding = (line: string) =>
  `diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-a\n+${line}\n`;

describe('a delivery on the landing queue', () => {
  it('holding U+FFFE, U+FFFF and an emoji in its patch and summary is answered 202 and comes back as it was sent', async () => {
    const delivery = runDelivery(
      { taskId: 'odd-characters-1' },
      { patch: patchAdding('const edge = "\uFFFE\uFFFF"; // 🚀 done'), summary: 'Shipped 🚀 with \uFFFF kept.' },
    );
    expect((await send(delivery)).status).toBe(202);
    const message = await landingMessage();
    expect(message.entry?.delivery).toMatchObject({
      patch: delivery.patch,
      summary: 'Shipped 🚀 with \uFFFF kept.',
    });
  });

  it('whose JSON fits a message but whose body, with emoji written as escapes, does not, goes by the inbox', async () => {
    const delivery = runDelivery({ taskId: 'many-emoji-1' }, { patch: patchAdding('🚀'.repeat(100_000)) });
    expect(Buffer.byteLength(JSON.stringify(delivery))).toBeLessThan(LANDING_MESSAGE_MAX_BYTES);
    expect((await send(delivery)).status).toBe(202);
    const message = await landingMessage();
    expect(message.inboxKey).toMatch(/^inbox\/Main\//);
  });
});

describe('judge messages sent together', () => {
  it('arrive every one as sent, ten to a call, and a queue that refuses the call names each message refused', async () => {
    const calls: string[] = [];
    t.emulators.sqs.middlewareStack.add(
      (next, context) => (args) => {
        calls.push(context.commandName ?? '');
        return next(args);
      },
      { step: 'initialize', name: 'countCalls' },
    );
    try {
      const queue = new SqsQueue<JudgeMessage>(t.emulators.sqs, t.emulators.queueUrls.judge);
      const messages = Array.from({ length: 25 }, (_, k) => ({
        space: 'Main',
        id: `run-${k}-\uFFFF`,
        finishedAt: '2026-12-07T08:00:00.000Z',
      }));
      expect(await queue.sendAll(messages)).toEqual([]);
      expect(calls).toEqual(['SendMessageBatchCommand', 'SendMessageBatchCommand', 'SendMessageBatchCommand']);
      const received: JudgeMessage[] = [];
      while (received.length < messages.length) {
        const { Messages = [] } = await t.emulators.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: t.emulators.queueUrls.judge, MaxNumberOfMessages: 10 }),
        );
        if (Messages.length === 0) break;
        received.push(...Messages.map((m) => JSON.parse(m.Body!) as JudgeMessage));
      }
      expect(received.map((m) => m.id).sort()).toEqual(messages.map((m) => m.id).sort());

      const gone = new SqsQueue<JudgeMessage>(t.emulators.sqs, `${t.emulators.queueUrls.judge}-deleted`);
      const refused = await gone.sendAll(messages.slice(0, 12));
      expect(refused.map((r) => r.index)).toEqual([...Array(12).keys()]);
      expect(refused[0]!.reason).toMatch(/^\w*QueueDoesNotExist\w*: /);
    } finally {
      t.emulators.sqs.middlewareStack.remove('countCalls');
    }
  });
});
