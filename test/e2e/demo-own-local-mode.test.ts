// `npm run demo` beside a running `npm start` (issue 41, items 10 and 11): the demo never pushes into a local mode
// it did not start; it says the port is taken, starts its own on a free port with the stand-in judge, reports
// delivery, landing and judging as they go, counts what it delivered and what was rejected from the endpoint's
// answers (and they agree), and says "Serving" once every run of the real Lite campaign is final. The port is
// held by a server that records every request, standing in for `npm start`: none may reach it.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from '@jest/globals';
import { apiPaths, type RunsPage } from '#analytics/contract.ts';
import { killProcess, type LocalProcess } from '../helpers/local-process.ts';
import { tempDir } from '../helpers/run-folders.ts';

const root = resolve(import.meta.dirname, '../..');
const TASKS = 3;
const running: LocalProcess[] = [];
const reached: string[] = [];
const taken = createServer((req, res) => {
  reached.push(`${req.method} ${req.url}`);
  res.writeHead(503).end();
});
afterAll(async () => {
  await Promise.all(running.map(killProcess));
  await new Promise((closed) => taken.close(closed));
});

it('starts its own local mode beside npm start, and serves once every run is final', async () => {
  await new Promise<void>((listening) => taken.listen(0, '127.0.0.1', listening));
  const port = String((taken.address() as AddressInfo).port);

  const demo = spawn(
    process.execPath,
    [join(root, 'node_modules/tsx/dist/cli.mjs'), 'demo/main.ts', '--tasks', String(TASKS)],
    {
      cwd: root,
      env: { ...process.env, PORT: port, REPLAY_DATA_DIR: tempDir('replay-demo-own-') },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const served = new Promise<string>((resolveServed, reject) => {
    demo.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Serving the cockpit at (http:\/\/[\d.:]+)\//.exec(out);
      if (match) resolveServed(match[1]!);
    });
    demo.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    demo.on('exit', (code) => reject(new Error(`the demo exited (${code}): ${out}`)));
  });
  running.push({ child: demo, url: '', output: () => out });
  const url = await served;

  expect(out).toContain(`Port ${port} is taken`);
  expect(new URL(url).port).not.toBe(port);
  const runs = TASKS * 4;
  expect(out).toMatch(
    new RegExp(`Delivered ${TASKS} issues, ${runs} runs and ${runs} hidden-test results in \\d+ s; rejected none\\.`),
  );
  expect(out).not.toMatch(/answers to the rejected ones/);
  expect(out).toMatch(
    /\d+ s: delivered \d+ of 12 runs and \d+ hidden-test results · landed \d+ · final \d+ \(judged or flagged\)/,
  );
  expect(out).toMatch(new RegExp(`Every run is final after \\d+ s: `));
  expect(out.indexOf('Every run is final')).toBeLessThan(out.indexOf('Serving the cockpit'));

  // Every run in the demo's own space, final; not one request to the port it did not take.
  const page = (await (
    await fetch(`${url}/api${apiPaths.runs('SweBenchLiteDemo', { limit: 1000 })}`)
  ).json()) as RunsPage;
  expect(page.runs).toHaveLength(runs);
  for (const row of page.runs) expect(['judged', 'flagged']).toContain(row.judgeState);
  expect(reached).toEqual([]);
}, 300_000);
