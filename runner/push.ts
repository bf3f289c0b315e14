// Signs and POSTs one delivery, as a runner host does (docs/contract.md §3). `postSigned` is what replay-push's outbox
// sends (the exact bytes it stored, so a retry carries the same body and delivery id, signed anew with the time of
// sending: a v2 signature lives for minutes); `pushDelivery` is the one-shot form used by benchmarks and tests. The
// answer is untrusted: at most MAX_ANSWER_BYTES of it are read, and each of its texts is cut to MAX_ANSWER_TEXT
// characters.
import { randomUUID } from 'node:crypto';
import { signedHeaders } from '#shared/signature.ts';
import { cutText } from './untrusted-text.ts';

export interface PushResult {
  status: number;
  body: Record<string, unknown>;
}

/** The ingest URL of a space on a deployment or local mode. */
export const ingestUrl = (baseUrl: string, space: string) => `${baseUrl}/hooks/${encodeURIComponent(space)}/ingest`;

/** The most of an answer replay-push reads: ingest answers in a few hundred bytes. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** The space an ingest URL (`…/hooks/{space}/ingest`) delivers to, as the endpoint decodes it; a v2 signature names it. */
export function spaceOfEndpoint(endpoint: string): string {
  const segment = /\/hooks\/([^/]+)\/ingest$/.exec(new URL(endpoint).pathname)?.[1];
  if (segment === undefined) throw new Error(`${endpoint} is not an ingest URL, …/hooks/{space}/ingest.`);
  return decodeURIComponent(segment);
}

/** The answer recorded for a 3xx: names where it pointed (as an absolute URL when it is one), so --endpoint can be fixed. */
function redirectAnswer(endpoint: string, status: number, location: string | null): Record<string, unknown> {
  if (location === null)
    return {
      error: 'redirected',
      message: `The endpoint answered ${status} without a Location; replay-push never follows a redirect: check --endpoint.`,
    };
  let target = location;
  try {
    target = new URL(location, endpoint).href;
  } catch {
    // Not a URL: named as given.
  }
  return {
    error: 'redirected',
    location: target,
    message: `The endpoint redirects (${status}) to ${target}; replay-push never follows a redirect: if that is the ingest URL, give it as --endpoint.`,
  };
}

export interface PostOptions {
  timeoutMs?: number;
  /** The clock the signature's timestamp is read from (Date.now; tests advance their own). */
  now?: () => number;
}

/**
 * One POST of the raw body, signed (v2) for the endpoint's space at this moment. Network failures and timeouts
 * reject (the caller decides to retry).
 */
export async function postSigned(
  endpoint: string,
  raw: Uint8Array,
  key: string,
  deliveryId: string,
  { timeoutMs = 30_000, now = Date.now }: PostOptions = {},
): Promise<PushResult> {
  const stamp = { space: spaceOfEndpoint(endpoint), deliveryId, timestamp: Math.floor(now() / 1000) };
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signedHeaders(raw, key, stamp) },
    // fetch's types want an ArrayBuffer-backed view; a Buffer from a file may sit on a shared pool.
    body: raw as Uint8Array<ArrayBuffer>,
    signal: AbortSignal.timeout(timeoutMs),
    // A redirect is never followed: the signed body would go where the endpoint's answer says.
    redirect: 'manual',
  });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    return {
      status: response.status,
      body: boundedTexts(redirectAnswer(endpoint, response.status, response.headers.get('location'))),
    };
  }
  const answer = await readCapped(response, MAX_ANSWER_BYTES);
  if (answer === null)
    return {
      status: response.status,
      body: {
        error: 'answer-too-large',
        message: `The endpoint's answer (${response.status}) ran past ${MAX_ANSWER_BYTES / 1024} KiB; replay-push read no more of it.`,
      },
    };
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(answer);
    body =
      parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : { error: 'not-json', message: answer };
  } catch {
    body = { error: 'not-json', message: answer };
  }
  return { status: response.status, body: boundedTexts(body) };
}

/** The answer's text, or null once it runs past `maxBytes` (the rest is never read: the stream is cancelled). */
async function readCapped(response: Response, maxBytes: number): Promise<string | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!response.body) return '';
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks).toString('utf8');
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
}

/** Every text of an answer cut to MAX_ANSWER_TEXT characters, so no answer swells the outbox or the terminal. */
function boundedTexts<T>(value: T): T {
  if (typeof value === 'string') return cutText(value) as T;
  if (Array.isArray(value)) return value.map(boundedTexts) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [boundedTexts(k), boundedTexts(v)])) as T;
  return value;
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
