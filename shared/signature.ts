// Per-host HMAC verification of a delivery (docs/contract.md §3), modelled on Standard Webhooks. Version 2 signs
// `v2:{space}:{deliveryId}:{timestamp}:{body}`, so a captured body verifies in no other space and, with the
// timestamp checked against the clock, for a few minutes only. Version 1 (GitHub's X-Hub-Signature-256, the body
// alone) verifies only inside a space's migration window. Every candidate key is tried, always, with constant-time
// comparison, so the time taken says nothing about which host (if any) matched. Exactly one host must verify: the
// same key configured for two hosts identifies no one.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The request headers that carry a signature (lower-case, as Node and API Gateway give them). */
export const SIGNATURE_HEADERS = {
  signature: 'x-replay-signature',
  timestamp: 'x-replay-timestamp',
  delivery: 'x-replay-delivery',
  v1: 'x-hub-signature-256',
} as const;

export type RequestHeaders = Readonly<Record<string, string | undefined>>;

const V1_SIGNATURE = /^[ \t]*sha256=([0-9a-fA-F]{64})[ \t]*$/;

/** The least a new host key holds (UTF-8 bytes, as HMAC takes it): as many as SHA-256 gives. Shorter keys are weak. */
export const STRONG_KEY_BYTES = 32;
export const keyBytes = (key: string) => Buffer.byteLength(key, 'utf8');

/** What a v2 signature binds the body to: the space it is sent to, its delivery id, and when it was signed. */
export interface DeliveryStamp {
  space: string;
  /** A UUID, the same across all of a delivery's retries. */
  deliveryId: string;
  /** Unix seconds at signing; a retry is signed anew. */
  timestamp: number;
}

const v2Prefix = ({ space, deliveryId, timestamp }: DeliveryStamp) => `v2:${space}:${deliveryId}:${timestamp}:`;

/** The headers of a delivery signed with version 2. */
export function signedHeaders(body: Uint8Array | string, key: string, stamp: DeliveryStamp): Record<string, string> {
  const digest = createHmac('sha256', key).update(v2Prefix(stamp)).update(body).digest('base64');
  return {
    [SIGNATURE_HEADERS.signature]: `v2,${digest}`,
    [SIGNATURE_HEADERS.timestamp]: String(stamp.timestamp),
    [SIGNATURE_HEADERS.delivery]: stamp.deliveryId,
  };
}

/** A version 1 `X-Hub-Signature-256` value: the body alone, as GitHub signs (read only in a migration window). */
export function signV1(body: Uint8Array | string, key: string): string {
  return `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
}

/** What a request offers to verify: the digest, and the text signed before the body. */
export type PresentedSignature =
  | { version: 2; digest: Buffer; prefix: string; timestamp: number; deliveryId: string }
  | { version: 1; digest: Buffer; prefix: '' };

export type HeaderProblem = { problem: 'missing' | 'malformed'; message: string };

/**
 * The signature a request's headers present for `space`, read without any key; or why they can verify nothing.
 * A version 2 signature wins over a version 1 header sent beside it.
 */
export function presentedSignature(headers: RequestHeaders, space: string): PresentedSignature | HeaderProblem {
  const v2 = headers[SIGNATURE_HEADERS.signature]?.trim();
  if (v2) {
    const digest = v2Digest(v2);
    if (!digest)
      return malformed('The X-Replay-Signature header must be "v2," followed by the base64 of an HMAC-SHA256.');
    const timestamp = headers[SIGNATURE_HEADERS.timestamp]?.trim();
    if (!timestamp || !isTimestamp(timestamp))
      return malformed('A v2 signature needs an X-Replay-Timestamp header: the Unix time of signing, in seconds.');
    const deliveryId = headers[SIGNATURE_HEADERS.delivery]?.trim();
    if (!deliveryId || !isUuid(deliveryId))
      return malformed('A v2 signature needs an X-Replay-Delivery header holding a UUID.');
    const stamp = { space, deliveryId, timestamp: Number(timestamp) };
    return { version: 2, digest, prefix: v2Prefix(stamp), timestamp: stamp.timestamp, deliveryId };
  }
  const v1 = headers[SIGNATURE_HEADERS.v1];
  if (v1) {
    const digest = V1_SIGNATURE.exec(v1)?.[1];
    if (!digest)
      return malformed('The X-Hub-Signature-256 header must be "sha256=" followed by 64 hexadecimal digits.');
    return { version: 1, digest: Buffer.from(digest, 'hex'), prefix: '' };
  }
  return { problem: 'missing', message: 'The X-Replay-Signature header is missing.' };
}

const malformed = (message: string): HeaderProblem => ({ problem: 'malformed', message });

// Read on every delivery, so by character codes in one pass each: regular expressions and Buffer's base64 decoder
// together cost a fifth of a 1 KB body's HMAC.
const BASE64_VALUE = new Int8Array(128).fill(-1);
[...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].forEach((c, i) => {
  BASE64_VALUE[c.charCodeAt(0)] = i;
});
const base64Value = (text: string, i: number) => {
  const c = text.charCodeAt(i);
  return c < 128 ? BASE64_VALUE[c]! : -1;
};

/** The 32 bytes of `v2,` and 43 base64 characters and `=`, or null. */
function v2Digest(value: string): Buffer | null {
  if (value.length !== 47 || !value.startsWith('v2,') || value.charCodeAt(46) !== 61) return null;
  const digest = Buffer.allocUnsafe(32);
  let bits = 0;
  let held = 0;
  let at = 0;
  for (let i = 3; i < 46; i++) {
    const v = base64Value(value, i);
    if (v < 0) return null;
    bits = ((bits << 6) | v) & 0xffffff;
    held += 6;
    if (held >= 8) {
      held -= 8;
      digest[at++] = (bits >> held) & 0xff;
    }
  }
  // The last character's two bits past the digest are zero in the one spelling a digest has (RFC 4648 §3.5).
  return (bits & 0b11) === 0 ? digest : null;
}

function isTimestamp(value: string): boolean {
  if (value.length < 1 || value.length > 12) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** 8-4-4-4-12 hexadecimal digits. */
function isUuid(value: string): boolean {
  if (value.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = value.charCodeAt(i) | 0x20; // lower-cased letters; '-' stays '-'
    const ok = i === 8 || i === 13 || i === 18 || i === 23 ? c === 45 : (c >= 48 && c <= 57) || (c >= 97 && c <= 102);
    if (!ok) return false;
  }
  return true;
}

export interface HostKeys {
  host: string;
  keys: string[];
}

export type SignatureCheck =
  | { ok: true; host: string; /** UTF-8 bytes of the key that verified. */ keyBytes: number }
  | { ok: false; reason: 'no-match' | 'ambiguous' };

export function verifySignature(
  rawBody: Uint8Array,
  presented: PresentedSignature,
  candidates: HostKeys[],
): SignatureCheck {
  // The host that verified, and whether another one did too (a host with several keys counts once).
  let verified: string | null = null;
  let verifiedBy = '';
  let ambiguous = false;
  for (const { host, keys } of candidates) {
    for (const key of keys) {
      const expected = createHmac('sha256', key).update(presented.prefix).update(rawBody).digest();
      if (!timingSafeEqual(expected, presented.digest)) continue;
      if (verified !== null && verified !== host) ambiguous = true;
      verified = host;
      verifiedBy = key;
    }
  }
  if (verified === null) return { ok: false, reason: 'no-match' };
  return ambiguous ? { ok: false, reason: 'ambiguous' } : { ok: true, host: verified, keyBytes: keyBytes(verifiedBy) };
}
