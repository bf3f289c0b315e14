// Signs and POSTs one delivery, as a runner host does (docs/contract.md §3). `postSigned` is what replay-push's outbox
// sends (the exact bytes it stored, so a retry carries the same body and delivery id); `pushDelivery` is
// the one-shot form used by benchmarks and tests.
import { randomUUID } from 'node:crypto';
import { sign } from '../ingest/signature.ts';

export interface PushResult {
  status: number;
  body: Record<string, unknown>;
}

/** The ingest URL of a space on a deployment or local mode. */
export const ingestUrl = (baseUrl: string, space: string) => `${baseUrl}/hooks/${encodeURIComponent(space)}/ingest`;

/** One signed POST of the raw body. Network failures and timeouts reject (the caller decides to retry). */
export async function postSigned(
  endpoint: string,
  raw: Uint8Array,
  key: string,
  deliveryId: string,
  timeoutMs = 30_000,
): Promise<PushResult> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': sign(raw, key),
      'x-replay-delivery': deliveryId,
    },
    // fetch's types want an ArrayBuffer-backed view; a Buffer from a file may sit on a shared pool.
    body: raw as Uint8Array<ArrayBuffer>,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    body =
      parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : { error: 'not-json', message: text.slice(0, 200) };
  } catch {
    body = { error: 'not-json', message: text.slice(0, 200) };
  }
  return { status: response.status, body };
}

export async function pushDelivery(
  baseUrl: string,
  space: string,
  delivery: unknown,
  key: string,
  deliveryId: string = randomUUID(),
): Promise<PushResult> {
  return postSigned(ingestUrl(baseUrl, space), Buffer.from(JSON.stringify(delivery)), key, deliveryId);
}
