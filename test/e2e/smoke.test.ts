// `npm run smoke` against local mode, as .ci/run runs it, and against a stand-in of a signed-in cockpit for
// the check only AWS has (the API refusing a request without a token).
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { keyEnvName } from '#shared/key-names.ts';
import { parseConfig } from '#schema/config.ts';
import { localOutputs } from '#infra/local/outputs.ts';
import { report, smoke } from '#infra/aws/operator/smoke.ts';
import { startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import { tempDir, writeKeyFile } from '../helpers/run-folders.ts';
import { PROJECT_ROOT } from '../infra/synth.ts';

const config = { spaces: { S: { senders: ['mac-1'] } }, cockpits: { Board: { space: 'S' } } };
let local: TestLocalMode;
let outputsPath: string;
const scratch = tempDir('replay-smoke-');

beforeAll(async () => {
  local = await startTestLocalMode(config, {});
  outputsPath = join(scratch, 'outputs.json');
  writeFileSync(outputsPath, JSON.stringify(localOutputs(local.url, parseConfig(config))));
});
afterAll(async () => {
  await local.stop();
});

const keyFile = (key?: string) =>
  key === undefined
    ? join(local.keysDir, keyEnvName('Hosting:ModuleReportSecret', 'mac-1'))
    : writeKeyFile(scratch, key);

async function runSmoke(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/smoke.ts', ...args], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    });
    return { code: 0, out: stdout };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}

describe('npm run smoke against local mode', () => {
  it('passes every check with a paired host, and stores nothing', async () => {
    const run = await runSmoke(outputsPath, '--host', 'mac-1', '--key-file', keyFile());
    expect(run.out.trim().split('\n')).toEqual([
      'ok   a bad signature is refused with 401',
      'ok   an unknown space answers 404',
      'ok   a check signed by mac-1 is verified with 200, storing nothing',
      'ok   CockpitUrlBoard: cockpit.json loads',
      'smoke: all 4 checks passed',
    ]);
    expect(run.code).toBe(0);
    expect(await local.adapters.inbox.list('')).toEqual([]);
  });

  it('fails, naming the check and the answer, when the key is not the one the endpoint holds', async () => {
    const run = await runSmoke(
      outputsPath,
      '--host',
      'mac-1',
      '--key-file',
      keyFile('not-the-paired-key-0123456789abcdef'),
    );
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/FAIL a check signed by mac-1 is verified with 200, storing nothing \(got 401 /);
    expect(run.out).toMatch(/smoke: 1 of 4 checks failed/);
  });

  it('refuses to run without the host and its key', async () => {
    const run = await runSmoke(outputsPath);
    expect(run.code).toBe(2);
    expect(run.out).toMatch(/^usage: npm run smoke/);
  });
});

describe('a cockpit that requires sign-in', () => {
  let cockpit: Server;
  let apiStatus = 401;
  beforeAll(async () => {
    cockpit = createServer((req, res) => {
      if (req.url === '/cockpit.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            cockpits: [{ name: 'Board', space: 'S', public: false }],
            api: '/api',
            signIn: { authorizeUrl: 'x', tokenUrl: 'x', logoutUrl: 'x', clientId: 'c', redirectUri: 'x', scopes: [] },
          }),
        );
      } else if (req.url === '/api/spaces/S/runs') {
        res.writeHead(apiStatus, { 'content-type': 'application/json' });
        res.end('{"message":"Unauthorized"}');
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => cockpit.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => cockpit.close(() => r())));

  const outputs = () => ({
    ...localOutputs(local.url, parseConfig(config)),
    'ReplayBench-Cockpits-3': { CockpitUrlBoard: `http://127.0.0.1:${(cockpit.address() as AddressInfo).port}/` },
  });

  it('passes when its API refuses a request without a token, and fails when it answers one', async () => {
    const options = { host: 'mac-1', key: readFileSync(keyFile(), 'utf8') };
    const refusing = report(await smoke(outputs(), options));
    expect(refusing.lines).toContain('ok   CockpitUrlBoard: the API refuses a request without a token with 401');
    apiStatus = 200;
    const open = report(await smoke(outputs(), options));
    expect(open.ok).toBe(false);
    expect(open.lines).toContain('FAIL CockpitUrlBoard: the API refuses a request without a token with 401 (got 200)');
  });
});

describe('an endpoint that does not answer', () => {
  it('fails its checks naming the URL and the reason, and still runs every other check', async () => {
    // A port nothing listens on: bound, then closed.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const gone = `http://127.0.0.1:${port}`;
    const outputs = {
      ...localOutputs(local.url, parseConfig(config)),
      'ReplayBench-Cockpits-3': { CockpitUrlGone: `${gone}/` },
    };
    const { lines, ok } = report(await smoke(outputs, { host: 'mac-1', key: readFileSync(keyFile(), 'utf8') }));
    expect(ok).toBe(false);
    expect(lines).toContain(
      `FAIL CockpitUrlGone: cockpit.json loads (got no answer from ${gone}/cockpit.json: connect ECONNREFUSED 127.0.0.1:${port})`,
    );
    // The ingest checks against local mode ran and passed.
    expect(lines.filter((l) => l.startsWith('ok '))).toHaveLength(4);
  });
});
