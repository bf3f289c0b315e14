// Messages between stages. A landing message carries the delivery itself when it fits (SQS takes up to 1 MiB),
// otherwise a claim check for the inbox object that holds it; the judge queue carries run references.
import * as z from './zod.ts';
import { deliverySchema } from './delivery.ts';
import { nonEmptyText } from './primitives.ts';

/** SQS's largest message body: the landing queue is made to take it, and ingest sends deliveries up to it inline. */
export const LANDING_MESSAGE_MAX_BYTES = 1024 * 1024;

/**
 * A message as the body SQS is sent: JSON in which the characters SQS refuses (U+FFFE, U+FFFF) are written as JSON
 * escapes, and so is each half of a pair beyond the Basic Multilingual Plane (an emoji), which the local emulator
 * refuses though AWS takes it: one body on both paths, read back by any JSON parser as the same message. Its size
 * is what ingest weighs against LANDING_MESSAGE_MAX_BYTES.
 */
export const queueMessageBody = (message: unknown): string =>
  JSON.stringify(message).replace(/[\uD800-\uDFFF\uFFFE\uFFFF]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

/**
 * `deliveryId`, the delivery the work is for, only labels the log lines (docs/deploy.md, "Following a delivery"):
 * a message queued again by the inbox reconciliation, or a retry the sweeper queues, has none.
 */
const correlation = { deliveryId: z.optional(nonEmptyText) };

export const judgeMessageSchema = z.object({
  space: nonEmptyText,
  id: nonEmptyText,
  finishedAt: nonEmptyText,
  /** Sent by the lander once the run's issue record has landed: a run waiting for it is due at once. */
  issueLanded: z.optional(z.literal(true)),
  ...correlation,
});
export type JudgeMessage = z.infer<typeof judgeMessageSchema>;

/**
 * The most runs the sweeper puts in one submission (one Message Batch) of a batch-mode space: each is claimed, its
 * issue text fetched and its budget taken before the batch goes, well inside the judge function's time.
 */
export const BATCH_SUBMIT_MAX_RUNS = 25;

/** A batch-mode space's due runs, sent by the sweeper: the judge submits them as one Message Batch. */
export const batchSubmitMessageSchema = z.object({
  space: nonEmptyText,
  submit: z
    .array(z.object({ id: nonEmptyText, finishedAt: nonEmptyText }))
    .check(z.minLength(1), z.maxLength(BATCH_SUBMIT_MAX_RUNS)),
});
/** An open Message Batch of a space, sent by the sweeper: the judge collects it once it has ended. */
export const batchCollectMessageSchema = z.object({ space: nonEmptyText, collect: nonEmptyText });

/** What the judge queue carries: one run to judge, a batch to submit, or a batch to collect. */
export const judgeQueueMessageSchema = z.union([
  batchSubmitMessageSchema,
  batchCollectMessageSchema,
  judgeMessageSchema,
]);
export type JudgeQueueMessage = z.infer<typeof judgeQueueMessageSchema>;

/** What the inbox holds for one accepted delivery, written by ingest and read by the lander. */
export const inboxEntrySchema = z.object({
  space: nonEmptyText,
  deliveryId: nonEmptyText,
  receivedAt: nonEmptyText,
  host: nonEmptyText,
  delivery: deliverySchema,
  /**
   * For a run of a model the space pins to hosts (`hostsByModel`), those hosts, as ingest read the configuration:
   * only they may own the run (docs/contract.md §4). Absent: any sender may.
   */
  owners: z.optional(z.array(nonEmptyText)),
  /** With `owners`: whether the run names its model as the space pins it, not by a look-alike. Absent: as if so. */
  pinnedName: z.optional(z.boolean()),
});
export type InboxEntry = z.output<typeof inboxEntrySchema>;

/**
 * One accepted delivery to land: `entry`, the delivery itself (no inbox object), or `inboxKey`, the inbox object
 * that holds it (a delivery too large for a message, local mode, or the inbox reconciliation's re-queue).
 */
export const landingMessageSchema = z
  .object({
    space: nonEmptyText,
    inboxKey: z.optional(z.string().check(z.startsWith('inbox/'))),
    entry: z.optional(inboxEntrySchema),
    ...correlation,
  })
  .check(
    z.refine((m) => (m.inboxKey === undefined) !== (m.entry === undefined), 'needs an inboxKey or an entry, not both'),
  );
export type LandingMessage = z.output<typeof landingMessageSchema>;
