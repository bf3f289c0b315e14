// Messages between stages. Queues carry claim checks only; the inbox object carries the delivery.
import * as z from 'zod';
import { deliverySchema } from './delivery.ts';

export const landingMessageSchema = z.object({ space: z.string().min(1), inboxKey: z.string().startsWith('inbox/') });
export type LandingMessage = z.infer<typeof landingMessageSchema>;

export const judgeMessageSchema = z.object({ space: z.string().min(1), id: z.string().min(1), finishedAt: z.string().min(1) });
export type JudgeMessage = z.infer<typeof judgeMessageSchema>;

/** What the inbox holds for one accepted delivery, written by ingest and read by the lander. */
export const inboxEntrySchema = z.object({
  space: z.string().min(1),
  deliveryId: z.string().min(1),
  receivedAt: z.string().min(1),
  host: z.string().min(1),
  delivery: deliverySchema,
});
export type InboxEntry = z.output<typeof inboxEntrySchema>;
