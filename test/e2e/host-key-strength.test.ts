// Host key strength in local mode (docs/contract.md §3, §10): the development keys `npm start` makes are at least 32
// bytes; an existing shorter key still verifies, and `npm start` warns naming its host (never the key); a space
// with `minKeyBytes` answers that key 401 while a space without it accepts it.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { pushDelivery } from '#runner/push.ts';
import { STRONG_KEY_BYTES } from '#shared/signature.ts';
import { runDelivery } from '../helpers/deliveries.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import { killProcess, startLocalProcess, type LocalProcess } from '../helpers/local-process.ts';

const WEAK_KEY = 'short-key-of-mac-1';
const STRONG_KEY = 'a'.repeat(STRONG_KEY_BYTES);
const processes: LocalProcess[] = [];
afterEach(async () => {
  await Promise.all(processes.splice(0).map(killProcess));
});

describe('npm start', () => {
  it('warns about each host whose key is shorter than 32 bytes, naming the host and never the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-key-strength-'));
    mkdirSync(join(dir, 'keys'));
    writeFileSync(join(dir, 'keys', 'Hosting__ModuleReportSecret__weak-mac'), WEAK_KEY);
    writeFileSync(join(dir, 'keys', 'Hosting__ModuleReportSecret__strong-mac'), STRONG_KEY);
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ spaces: { S: { senders: ['weak-mac', 'strong-mac', 'new-mac'] } } }),
    );
    const local = await startLocalProcess({
      REPLAY_CONFIG: join(dir, 'config.json'),
      REPLAY_DATA_DIR: dir,
      REPLAY_KEYS_DIR: join(dir, 'keys'),
    });
    processes.push(local);
    const output = await eventually(async () => (local.output().includes('warning:') ? local.output() : null));
    const warnings = output.split('\n').filter((line) => line.includes('warning:'));
    expect(warnings).toEqual([
      '  warning: the key of weak-mac is shorter than 32 bytes. It still verifies, but it ' +
        'is weak: pair weak-mac anew with `openssl rand -hex 32` (docs/runner.md, "Pairing a Mac").',
    ]);
    expect(output).not.toContain(WEAK_KEY);
    // The key it made for the host that had none is long enough.
    const generated = readFileSync(join(dir, 'keys', 'Hosting__ModuleReportSecret__new-mac'), 'utf8');
    expect(Buffer.byteLength(generated)).toBeGreaterThanOrEqual(STRONG_KEY_BYTES);
  });
});

describe('local mode with a weak key', () => {
  // One local mode for both: the first reads what it found at start, the second only pushes.
  let local: TestLocalMode;
  beforeAll(async () => {
    local = await startTestLocalMode(
      {
        spaces: {
          Strict: { senders: ['weak-mac', 'strong-mac'], minKeyBytes: 32 },
          Lenient: { senders: ['weak-mac', 'new-mac'] },
        },
      },
      { 'weak-mac': WEAK_KEY, 'strong-mac': STRONG_KEY },
    );
  });
  afterAll(() => local.stop());

  it('makes development keys of at least 32 bytes and lists the hosts whose keys are shorter', () => {
    expect(local.weakKeys.map((k) => k.host)).toEqual(['weak-mac']);
    expect(local.generatedKeys.map((k) => k.host)).toEqual(['new-mac']);
    expect(Buffer.byteLength(readFileSync(local.generatedKeys[0]!.path, 'utf8'))).toBeGreaterThanOrEqual(32);
  });

  it('is answered 401 by a space with minKeyBytes 32 and 202 by a space without it', async () => {
    const delivery = (host: string) => runDelivery({ host, taskId: `from-${host}` });
    expect(await pushDelivery(local.url, 'Strict', delivery('weak-mac'), WEAK_KEY)).toMatchObject({
      status: 401,
      body: { signature: 'invalid', error: 'bad-signature' },
    });
    expect((await pushDelivery(local.url, 'Lenient', delivery('weak-mac'), WEAK_KEY)).status).toBe(202);
    expect((await pushDelivery(local.url, 'Strict', delivery('strong-mac'), STRONG_KEY)).status).toBe(202);
  });
});
