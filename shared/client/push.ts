// Signs and POSTs one delivery, as a runner host does (SPEC §3). Used by the demo, the benchmarks and tests.
import { randomUUID } from 'node:crypto';
import { sign } from '../ingest/signature.ts';

export interface PushResult {
  status: number;
  body: Record<string, unknown>;
}

export async function pushDelivery(baseUrl: string, space: string, delivery: unknown, key: string, deliveryId: string = randomUUID()): Promise<PushResult> {
  const raw = Buffer.from(JSON.stringify(delivery));
  const response = await fetch(`${baseUrl}/hooks/${encodeURIComponent(space)}/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(raw, key), 'x-replay-delivery': deliveryId },
    body: raw,
  });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { error: 'not-json', message: text.slice(0, 200) };
  }
  return { status: response.status, body };
}
