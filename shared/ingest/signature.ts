// Per-host HMAC verification. Every candidate key is tried, always, with constant-time comparison, so the
// time taken says nothing about which host (if any) matched. Exactly one host must verify: the same key
// configured for two hosts identifies no one.
import { createHmac, timingSafeEqual } from 'node:crypto';

const HEADER_FORMAT = /^\s*sha256=([0-9a-fA-F]{64})\s*$/;

export function sign(body: Uint8Array | string, key: string): string {
  return `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
}

export interface HostKeys {
  host: string;
  keys: string[];
}

export type SignatureCheck = { ok: true; host: string } | { ok: false; reason: 'missing' | 'malformed' | 'no-match' | 'ambiguous' };

export function verifySignature(rawBody: Uint8Array, header: string | undefined, candidates: HostKeys[]): SignatureCheck {
  if (!header) return { ok: false, reason: 'missing' };
  const match = HEADER_FORMAT.exec(header);
  if (!match) return { ok: false, reason: 'malformed' };
  const given = Buffer.from(match[1]!, 'hex');
  // The host that verified, and whether another one did too (a host with several keys counts once).
  let verified: string | null = null;
  let ambiguous = false;
  for (const { host, keys } of candidates) {
    for (const key of keys) {
      if (!timingSafeEqual(createHmac('sha256', key).update(rawBody).digest(), given)) continue;
      if (verified !== null && verified !== host) ambiguous = true;
      verified = host;
    }
  }
  if (verified === null) return { ok: false, reason: 'no-match' };
  return ambiguous ? { ok: false, reason: 'ambiguous' } : { ok: true, host: verified };
}
