import { describe, expect, it } from '@jest/globals';
import {
  presentedSignature,
  signedHeaders,
  signV1,
  verifySignature,
  type PresentedSignature,
  type RequestHeaders,
} from '#shared/signature.ts';

const body = Buffer.from('{"kind":"run"}');
const stamp = { space: 'Main', deliveryId: '0b6f8f2e-6a8c-4d3e-9a51-2f1c7e0d9b44', timestamp: 1764417600 };
const hosts = [
  { host: 'mac-studio-1', keys: ['key-one'] },
  { host: 'mac-mini-2', keys: ['key-two-new', 'key-two-old'] },
];

/** The signature the headers present for `space`; a test that expects one fails on a header problem. */
function presented(headers: RequestHeaders, space = stamp.space): PresentedSignature {
  const read = presentedSignature(headers, space);
  if ('problem' in read) throw new Error(read.message);
  return read;
}

const v2 = (key: string, bytes: Uint8Array | string = body, over = stamp) => presented(signedHeaders(bytes, key, over));

describe('a v2 signature', () => {
  it('is HMAC-SHA256 over "v2:{space}:{deliveryId}:{timestamp}:{body}", as openssl computes it', () => {
    // printf 'v2:Main:0b6f…9b44:1764417600:{"kind":"run"}' | openssl dgst -sha256 -hmac "It's a Secret to Everybody" -binary | base64
    expect(signedHeaders(body, "It's a Secret to Everybody", stamp)).toEqual({
      'x-replay-signature': 'v2,hqfU2gYJQI8+BWtSThK+VJgIoi9VWw1PaQd0NBwgzgw=',
      'x-replay-timestamp': '1764417600',
      'x-replay-delivery': stamp.deliveryId,
    });
  });

  it('identifies the one host whose key verifies it, and the UTF-8 length of that key', () => {
    expect(verifySignature(body, v2('key-one'), hosts)).toEqual({ ok: true, host: 'mac-studio-1', keyBytes: 7 });
    const unicode = [{ host: 'mac-studio-1', keys: ['ключ'] }];
    expect(verifySignature(body, v2('ключ'), unicode)).toMatchObject({ ok: true, keyBytes: 8 });
  });

  it('accepts the previous key during a rotation as the same host', () => {
    expect(verifySignature(body, v2('key-two-old'), hosts)).toEqual({ ok: true, host: 'mac-mini-2', keyBytes: 11 });
  });

  it.each([
    ['another space', { space: 'Other' }],
    ['another delivery id', { deliveryId: '0b6f8f2e-6a8c-4d3e-9a51-2f1c7e0d9b45' }],
    ['another time', { timestamp: stamp.timestamp + 1 }],
  ])('verifies for nothing else: presented for %s, the same body and signature do not verify', (_what, change) => {
    const headers = { ...signedHeaders(body, 'key-one', stamp) };
    const moved = { ...stamp, ...change };
    headers['x-replay-timestamp'] = String(moved.timestamp);
    headers['x-replay-delivery'] = moved.deliveryId;
    expect(verifySignature(body, presented(headers, moved.space), hosts)).toEqual({ ok: false, reason: 'no-match' });
  });

  it('does not verify as a v1 signature of the same body, nor a v1 signature as v2', () => {
    const v1Digest = signV1(body, 'key-one').slice('sha256='.length);
    const headers = { ...signedHeaders(body, 'key-one', stamp) };
    headers['x-replay-signature'] = `v2,${Buffer.from(v1Digest, 'hex').toString('base64')}`;
    expect(verifySignature(body, presented(headers), hosts)).toEqual({ ok: false, reason: 'no-match' });
  });

  it('wins over a v1 header sent beside it', () => {
    const both = { ...signedHeaders(body, 'key-one', stamp), 'x-hub-signature-256': signV1(body, 'key-one') };
    expect(presented(both)).toMatchObject({ version: 2, timestamp: stamp.timestamp });
  });

  it.each([
    {
      name: 'a signature over different bytes',
      bytes: Buffer.from('{"kind":"run"} '),
      listed: hosts,
      reason: 'no-match',
    },
    {
      name: 'when the same key is configured for two hosts',
      bytes: body,
      listed: [
        { host: 'a', keys: ['key-one'] },
        { host: 'b', keys: ['key-one'] },
      ],
      reason: 'ambiguous',
    },
  ])('refuses $name', ({ bytes, listed, reason }) => {
    expect(verifySignature(bytes, v2('key-one'), listed)).toEqual({ ok: false, reason });
  });

  const good = signedHeaders(body, 'key-one', stamp);
  const base64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const respelt = (header: string) =>
    `${header.slice(0, 45)}${base64[base64.indexOf(header[45]!) ^ 0b01]}${header.slice(46)}`;
  it.each([
    { name: 'no header at all', headers: {}, problem: 'missing' },
    { name: 'an empty signature', headers: { ...good, 'x-replay-signature': '' }, problem: 'missing' },
    {
      name: 'another version',
      headers: { ...good, 'x-replay-signature': good['x-replay-signature']!.replace('v2,', 'v1,') },
      problem: 'malformed',
    },
    { name: 'a hex digest', headers: { ...good, 'x-replay-signature': `v2,${'0'.repeat(64)}` }, problem: 'malformed' },
    {
      name: 'a digest one character short',
      headers: { ...good, 'x-replay-signature': `v2,${'A'.repeat(42)}=` },
      problem: 'malformed',
    },
    {
      // Its last character's two spare bits set: the same 32 bytes, spelt another way (4 spellings would verify).
      name: 'a digest spelt another way',
      headers: { ...good, 'x-replay-signature': respelt(good['x-replay-signature']!) },
      problem: 'malformed',
    },
    { name: 'no timestamp', headers: { ...good, 'x-replay-timestamp': undefined }, problem: 'malformed' },
    {
      name: 'a timestamp in milliseconds as a fraction',
      headers: { ...good, 'x-replay-timestamp': '1764417600.5' },
      problem: 'malformed',
    },
    {
      name: 'an ISO timestamp',
      headers: { ...good, 'x-replay-timestamp': '2025-11-29T12:00:00Z' },
      problem: 'malformed',
    },
    { name: 'a negative timestamp', headers: { ...good, 'x-replay-timestamp': '-1' }, problem: 'malformed' },
    { name: 'no delivery id', headers: { ...good, 'x-replay-delivery': undefined }, problem: 'malformed' },
    {
      name: 'a delivery id that is no UUID',
      headers: { ...good, 'x-replay-delivery': 'Main:1' },
      problem: 'malformed',
    },
  ])('is unreadable with $name ($problem), before any key', ({ headers, problem }) => {
    expect(presentedSignature(headers, 'Main')).toMatchObject({ problem, message: expect.any(String) });
  });
});

describe('a v1 signature (X-Hub-Signature-256, read in a migration window only)', () => {
  const v1 = (header: string) => presented({ 'x-hub-signature-256': header });

  it("matches GitHub's published X-Hub-Signature-256 test vector", () => {
    // https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
    expect(signV1('Hello, World!', "It's a Secret to Everybody")).toBe(
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });

  it('verifies the raw body alone, with spaces around the header and an upper-case digest', () => {
    expect(verifySignature(body, v1(` ${signV1(body, 'key-one')}\t`), hosts)).toMatchObject({
      ok: true,
      host: 'mac-studio-1',
    });
    const upper = signV1(body, 'key-two-old').toUpperCase().replace('SHA256=', 'sha256=');
    expect(verifySignature(body, v1(upper), hosts)).toMatchObject({ ok: true, host: 'mac-mini-2' });
    expect(v1(signV1(body, 'key-one'))).toMatchObject({ version: 1 });
  });

  it.each([
    { name: 'of another algorithm', header: 'sha1=abc' },
    { name: 'one digit short', header: `sha256=${'0'.repeat(63)}` },
    { name: 'one digit long', header: `sha256=${'0'.repeat(65)}` },
    { name: 'with a non-hex last digit', header: `sha256=${'0'.repeat(63)}g` },
    { name: 'with an upper-case algorithm name', header: `SHA256=${'0'.repeat(64)}` },
    { name: 'with a space after the algorithm', header: `sha256= ${'0'.repeat(63)}` },
  ])('is malformed $name', ({ header }) => {
    expect(presentedSignature({ 'x-hub-signature-256': header }, 'Main')).toMatchObject({ problem: 'malformed' });
  });
});
