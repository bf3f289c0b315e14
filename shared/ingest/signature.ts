// Per-host HMAC verification. Every candidate key is tried, always, with constant-time comparison, so the
// time taken says nothing about which host (if any) matched. Exactly one host must verify: the same key
// configured for two hosts identifies no one.
import { createHmac, timingSafeEqual } from 'node:crypto';

const HEADER_FORMAT = /^sha256=([0-9a-fA-F]{64})$/;

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
  const match = HEADER_FORMAT.exec(header.trim());
  if (!match) return { ok: false, reason: 'malformed' };
  const given = Buffer.from(match[1]!, 'hex');
  const verifying = new Set<string>();
  for (const { host, keys } of candidates) {
    for (const key of keys) {
      const expected = createHmac('sha256', key).update(rawBody).digest();
      if (timingSafeEqual(expected, given)) verifying.add(host);
    }
  }
  if (verifying.size === 1) return { ok: true, host: [...verifying][0]! };
  return { ok: false, reason: verifying.size === 0 ? 'no-match' : 'ambiguous' };
}
