import * as z from 'zod';

/** What the pipeline knows of a runner host, kept from the deliveries it sent. */
export const hostRecordSchema = z.object({
  host: z.string(),
  hostHardware: z.string().nullable(),
  spaces: z.array(z.string()),
  firstDeliveryAt: z.string().nullable(),
  lastDeliveryAt: z.string().nullable(),
  runsLanded: z.number().int().nonnegative(),
  paired: z.boolean(),
});
export type HostRecord = z.infer<typeof hostRecordSchema>;

/** The stored part; `runsLanded` and `paired` are derived when read. */
export type StoredHost = Omit<HostRecord, 'runsLanded' | 'paired'>;
