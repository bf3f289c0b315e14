// `replay-push check` against local mode: a signed check proves a host's pairing and listing and leaves no
// row, object or queued message behind (docs/contract.md §3), and every wrong pairing says what to fix.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { keyEnvName } from '#shared/key-names.ts';
import { startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import { replayPush, tempDir, writeKeyFile } from '../helpers/run-folders.ts';

let local: TestLocalMode;

beforeAll(async () => {
  // Development keys for both senders, as `npm start` makes them; mac-other sends to Other only.
  local = await startTestLocalMode({ spaces: { S: { senders: ['mac-1'] }, Other: { senders: ['mac-other'] } } }, {});
});
afterAll(async () => {
  await local.stop();
});

const keyName = (host: string) => keyEnvName('Hosting:ModuleReportSecret', host);
const clientKeys = (host: string, key = readFileSync(join(local.keysDir, keyName(host)), 'utf8')) => {
  const dir = tempDir('replay-check-keys-');
  writeKeyFile(dir, key, keyName(host));
  return dir;
};
const check = (host: string, keysDir: string, space = 'S') =>
  replayPush(['check'], {
    REPLAY_ENDPOINT: `${local.url}/hooks/${space}/ingest`,
    REPLAY_HOST: host,
    REPLAY_KEYS_DIR: keysDir,
  });

describe('replay-push check', () => {
  it('says a paired, listed host is paired, exits 0, and stores nothing', async () => {
    const run = await check('mac-1', clientKeys('mac-1'));
    expect(run.code).toBe(0);
    expect(run.out).toEqual([
      `replay-push: paired: ${local.url}/hooks/S/ingest verified host "mac-1"'s signature; nothing was stored.`,
    ]);
    const runs = (await (await fetch(`${local.url}/api/spaces/S/runs`)).json()) as { runs: unknown[] };
    expect(runs.runs).toEqual([]);
    expect(await local.adapters.inbox.list('')).toEqual([]);
    expect(await local.adapters.data.list('runs/')).toEqual([]);
  });

  it("says a host whose key differs from the endpoint's is not paired, and exits 3", async () => {
    const run = await check('mac-1', clientKeys('mac-1', 'a-key-nobody-put-in-the-secret-0123456789'));
    expect(run.code).toBe(3);
    expect(run.err[0]).toMatch(/^replay-push: not paired: no key the endpoint holds verifies host "mac-1"'s signature/);
  });

  it('says a paired host that is not a sender of the space is not listed, and exits 3', async () => {
    const run = await check('mac-other', clientKeys('mac-other'));
    expect(run.code).toBe(3);
    expect(run.err[0]).toMatch(/^replay-push: paired but not listed: host "mac-other" is not a sender of this space/);
  });

  it('says an unknown space is unknown, and a host with no key here is not checked (exit 2)', async () => {
    const unknown = await check('mac-1', clientKeys('mac-1'), 'Nowhere');
    expect([unknown.code, unknown.err[0]]).toEqual([3, expect.stringMatching(/no such space/)]);
    const keyless = await check('mac-1', tempDir('replay-no-keys-'));
    expect([keyless.code, keyless.err[0]]).toEqual([2, expect.stringMatching(/has no key here/)]);
  });
});
