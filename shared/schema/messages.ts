// Messages between stages. Queues carry claim checks only; the inbox object carries the delivery.
import * as z from './zod.ts';
import { deliverySchema } from './delivery.ts';
import { nonEmptyText } from './primitives.ts';

/**
 * `deliveryId`, the delivery the work is for, only labels the log lines (docs/deploy.md, "Following a delivery"):
 * a message queued again by the inbox reconciliation, or a retry the sweeper queues, has none.
 */
const correlation = { deliveryId: z.optional(nonEmptyText) };

export const landingMessageSchema = z.object({
  space: nonEmptyText,
  inboxKey: z.string().check(z.startsWith('inbox/')),
  ...correlation,
});
export type LandingMessage = z.infer<typeof landingMessageSchema>;

export const judgeMessageSchema = z.object({
  space: nonEmptyText,
  id: nonEmptyText,
  finishedAt: nonEmptyText,
  ...correlation,
});
export type JudgeMessage = z.infer<typeof judgeMessageSchema>;

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
});
export type InboxEntry = z.output<typeof inboxEntrySchema>;
