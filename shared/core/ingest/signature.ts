// Per-host HMAC verification. Every candidate key is tried, always, with constant-time comparison, so the
// time taken says nothing about which host (if any) matched. Exactly one host must verify: the same key
// configured for two hosts identifies no one.
import { createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE_HEADER = /^[ \t]*sha256=([0-9a-fA-F]{64})[ \t]*$/;

/** The least a new host key holds (UTF-8 bytes, as HMAC takes it): as many as SHA-256 gives. Shorter keys are weak. */
export const STRONG_KEY_BYTES = 32;
export const keyBytes = (key: string) => Buffer.byteLength(key, 'utf8');

export function sign(body: Uint8Array | string, key: string): string {
  return `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
}

export interface HostKeys {
  host: string;
  keys: string[];
}

export type SignatureCheck =
  | { ok: true; host: string; /** UTF-8 bytes of the key that verified. */ keyBytes: number }
  | { ok: false; reason: 'missing' | 'malformed' | 'no-match' | 'ambiguous' };

/** Why a signature header can verify nothing, read without any key: absent, or not `sha256=` and 64 hex digits. */
export function signatureHeaderProblem(header: string | undefined): 'missing' | 'malformed' | null {
  if (!header) return 'missing';
  return digestOf(header) ? null : 'malformed';
}

export function verifySignature(
  rawBody: Uint8Array,
  header: string | undefined,
  candidates: HostKeys[],
): SignatureCheck {
  if (!header) return { ok: false, reason: 'missing' };
  const given = digestOf(header);
  if (!given) return { ok: false, reason: 'malformed' };
  // The host that verified, and whether another one did too (a host with several keys counts once).
  let verified: string | null = null;
  let verifiedBy = '';
  let ambiguous = false;
  for (const { host, keys } of candidates) {
    for (const key of keys) {
      if (!timingSafeEqual(createHmac('sha256', key).update(rawBody).digest(), given)) continue;
      if (verified !== null && verified !== host) ambiguous = true;
      verified = host;
      verifiedBy = key;
    }
  }
  if (verified === null) return { ok: false, reason: 'no-match' };
  return ambiguous ? { ok: false, reason: 'ambiguous' } : { ok: true, host: verified, keyBytes: keyBytes(verifiedBy) };
}

/** The digest a header names: `sha256=` and 64 hex digits, with spaces or tabs around them. */
function digestOf(header: string): Buffer | null {
  const match = SIGNATURE_HEADER.exec(header);
  return match ? Buffer.from(match[1]!, 'hex') : null;
}
