import * as z from './zod.ts';
import { count } from './primitives.ts';

/**
 * What a space knows of a runner host, kept from the deliveries it sent to that space only (docs/contract.md §2): a
 * space's hosts list never reveals another space, its hardware or its delivery times. `spaces` is this
 * space when the host has delivered to it, else empty.
 */
export const hostRecordSchema = z.object({
  host: z.string(),
  hostHardware: z.nullable(z.string()),
  spaces: z.array(z.string()),
  firstDeliveryAt: z.nullable(z.string()),
  lastDeliveryAt: z.nullable(z.string()),
  runsLanded: count,
  paired: z.boolean(),
});
export type HostRecord = z.infer<typeof hostRecordSchema>;

/** The stored part, one per (space, host); `spaces`, `runsLanded` and `paired` are derived when read. */
export type StoredHost = Omit<HostRecord, 'spaces' | 'runsLanded' | 'paired'> & { space: string };
