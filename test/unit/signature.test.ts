import { describe, expect, it } from '@jest/globals';
import { sign, verifySignature } from '../../shared/core/ingest/signature.ts';

describe('per-host signature verification', () => {
  it("matches GitHub's published X-Hub-Signature-256 test vector", () => {
    // https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
    expect(sign('Hello, World!', "It's a Secret to Everybody")).toBe(
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });

  const body = Buffer.from('{"kind":"run"}');
  const hosts = [
    { host: 'mac-studio-1', keys: ['key-one'] },
    { host: 'mac-mini-2', keys: ['key-two-new', 'key-two-old'] },
  ];

  it('identifies the one host whose key verifies the raw bytes, and the UTF-8 length of that key', () => {
    expect(verifySignature(body, sign(body, 'key-one'), hosts)).toEqual({
      ok: true,
      host: 'mac-studio-1',
      keyBytes: 7,
    });
  });

  it('accepts the previous key during a rotation as the same host, with the length of the key that verified', () => {
    expect(verifySignature(body, sign(body, 'key-two-old'), hosts)).toEqual({
      ok: true,
      host: 'mac-mini-2',
      keyBytes: 11,
    });
    const unicode = [{ host: 'mac-studio-1', keys: ['ключ'] }];
    expect(verifySignature(body, sign(body, 'ключ'), unicode)).toMatchObject({ ok: true, keyBytes: 8 });
  });

  it('takes a host that lists the same key twice as that one host, and a header with spaces around it', () => {
    const twice = [{ host: 'mac-studio-1', keys: ['key-one', 'key-one'] }, ...hosts.slice(1)];
    expect(verifySignature(body, ` ${sign(body, 'key-one')}\t`, twice)).toMatchObject({
      ok: true,
      host: 'mac-studio-1',
    });
  });

  it('accepts an upper-case hex digest', () => {
    expect(verifySignature(body, sign(body, 'key-one').toUpperCase().replace('SHA256=', 'sha256='), hosts).ok).toBe(
      true,
    );
  });

  it.each([
    {
      name: 'a signature over different bytes',
      bytes: Buffer.from('{"kind":"run"} '),
      key: 'key-one',
      listed: hosts,
      reason: 'no-match',
    },
    { name: 'a key that belongs to no listed host', bytes: body, key: 'fleet-wide', listed: hosts, reason: 'no-match' },
    {
      name: 'when the same key is configured for two hosts',
      bytes: body,
      key: 'same',
      listed: [
        { host: 'a', keys: ['same'] },
        { host: 'b', keys: ['same'] },
      ],
      reason: 'ambiguous',
    },
  ])('refuses $name', ({ bytes, key, listed, reason }) => {
    // Always signed over `body` with `key`, then verified over `bytes` against `listed`.
    expect(verifySignature(bytes, sign(body, key), listed)).toEqual({ ok: false, reason });
  });

  it.each([
    { name: 'absent', header: undefined, reason: 'missing' },
    { name: 'empty', header: '', reason: 'missing' },
    { name: 'of another algorithm', header: 'sha1=abc', reason: 'malformed' },
    { name: 'with letters that are not hex', header: 'sha256=xyz', reason: 'malformed' },
    { name: 'one digit short', header: `sha256=${'0'.repeat(63)}`, reason: 'malformed' },
    { name: 'one digit long', header: `sha256=${'0'.repeat(65)}`, reason: 'malformed' },
    { name: 'with non-hex digits inside', header: `sha256=${'0'.repeat(30)}zz${'0'.repeat(32)}`, reason: 'malformed' },
    { name: 'with a non-hex last digit', header: `sha256=${'0'.repeat(63)}g`, reason: 'malformed' },
    { name: 'with an upper-case algorithm name', header: `SHA256=${'0'.repeat(64)}`, reason: 'malformed' },
    { name: 'with a space after the algorithm', header: `sha256= ${'0'.repeat(63)}`, reason: 'malformed' },
  ])('refuses a header $name as $reason', ({ header, reason }) => {
    expect(verifySignature(body, header, hosts)).toEqual({ ok: false, reason });
  });
});
