// Messages between stages. Queues carry claim checks only; the inbox object carries the delivery.
import * as z from './zod.ts';
import { deliverySchema } from './delivery.ts';

const nonEmpty = z.string().check(z.minLength(1));

export const landingMessageSchema = z.object({ space: nonEmpty, inboxKey: z.string().check(z.startsWith('inbox/')) });
export type LandingMessage = z.infer<typeof landingMessageSchema>;

export const judgeMessageSchema = z.object({ space: nonEmpty, id: nonEmpty, finishedAt: nonEmpty });
export type JudgeMessage = z.infer<typeof judgeMessageSchema>;

/** What the inbox holds for one accepted delivery, written by ingest and read by the lander. */
export const inboxEntrySchema = z.object({
  space: nonEmpty,
  deliveryId: nonEmpty,
  receivedAt: nonEmpty,
  host: nonEmpty,
  delivery: deliverySchema,
});
export type InboxEntry = z.output<typeof inboxEntrySchema>;
