// `npm run smoke -- <outputs file> --host H --key-file F [--space S]` (docs/deploy.md, "Smoke test").
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { OperatorError } from '#infra/aws/operator/operator-command.ts';
import { readOutputs } from '#infra/aws/operator/outputs.ts';
import { report, smoke } from '#infra/aws/operator/smoke.ts';

const USAGE = 'usage: npm run smoke -- <outputs file> --host HOST --key-file FILE [--space SPACE]';

try {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: { host: { type: 'string' }, 'key-file': { type: 'string' }, space: { type: 'string' } },
  });
  if (positionals.length !== 1 || !values.host || !values['key-file']) throw new OperatorError(USAGE);
  const key = readFileSync(values['key-file'], 'utf8').trim();
  const results = await smoke(readOutputs(positionals[0]!), { host: values.host, key, space: values.space });
  const { lines, ok } = report(results);
  for (const line of lines) console.log(line);
  process.exitCode = ok ? 0 : 1;
} catch (error) {
  console.error(error instanceof OperatorError ? error.message : `smoke: ${(error as Error).message}`);
  process.exitCode = 2;
}
