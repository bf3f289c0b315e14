#!/usr/bin/env node
// `replay-push` (docs/contract.md §7, docs/runner.md): run in a checkout through bin/replay-push.mjs, or bundled into
// one self-contained file by `npm run build:client`.
import { runCli } from '#runner/cli.ts';

process.exitCode = await runCli(process.argv.slice(2), process.env, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  errRaw: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stderr.isTTY),
});
