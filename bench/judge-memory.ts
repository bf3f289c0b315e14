// `npm run bench:judge-memory`: how much memory the judge function needs, to size it (its wait on the model is
// billed per GB-second, docs/deploy.md "What it costs"). In a fresh Node process run as the function runs (its
// bundle as esbuild builds it, its NODE_OPTIONS), the judge's bundle is imported, its model and GitHub clients
// are built, and the work of one attempt on the largest input is done: a 1 MiB patch (the largest delivery)
// read with its summary from the one object they are stored in (its text as S3 hands it over, parsed as the
// judge parses it), rebuilt from its parsed diff, screened with its summary, the issue text and the reference fix, the prompt
// built and serialized as the request body. Figure: the process's peak resident memory (maxRSS), median of
// the rounds, beside the floor: the same Node process that imports nothing.
//   npm run bench:judge-memory [-- --rounds 5]
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { FUNCTION_BUILD_OPTIONS, FUNCTION_NODE_OPTIONS } from '#infra/aws/constructs/replay-function.ts';
import { BUNDLED_CONFIG_FILE } from '#schema/config.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const ROUNDS = Number(values.rounds);
const root = resolve(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'replay-judge-memory-'));

// What the stack sets; values are placeholders, since nothing here makes a request.
const FUNCTION_ENV = {
  NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
  AWS_REGION: 'us-east-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  TABLE_NAME: 'table',
  DATA_BUCKET: 'data',
  ANTHROPIC_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:anthropic',
  GITHUB_APP_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:github',
};

/** One attempt's work on the largest input, with the clients the judge builds on its first message. */
const ATTEMPT = `
import Anthropic from '@anthropic-ai/sdk';
import { Octokit } from '@octokit/rest';
import { createAppAuth } from '@octokit/auth-app';
import { rebuiltDiff } from '#shared/diff.ts';
import { verdictChecks } from '#core/judge/verdict-checks.ts';
import { buildPrompt } from '#core/judge/prompt.ts';
import { JUDGE_ANSWER_JSON_SCHEMA } from '#core/judge/answer.ts';
import { readRunTexts } from '#core/run-texts.ts';

export async function attempt(source) {
  new Anthropic({ apiKey: 'bench' });
  new Octokit({ authStrategy: createAppAuth, auth: { appId: '1', privateKey: 'bench', installationId: '2' } });
  const hunk = (i) => [
    '@@ -' + (i * 8 + 1) + ',8 +' + (i * 8 + 1) + ',8 @@',
    ...source.slice(i % 500, (i % 500) + 3).map((l) => ' ' + l),
    ...source.slice((i % 500) + 3, (i % 500) + 5).map((l) => '-' + l),
    ...source.slice((i % 500) + 3, (i % 500) + 5).map((l) => '+' + l.toUpperCase()),
    ...source.slice((i % 500) + 5, (i % 500) + 8).map((l) => ' ' + l),
  ];
  const diff = (path, bytes) => {
    const lines = ['diff --git a/' + path + ' b/' + path, '--- a/' + path, '+++ b/' + path];
    let size = 0;
    for (let i = 0; size < bytes; i++) {
      const part = hunk(i).join('\\n');
      lines.push(part);
      size += part.length + 1;
    }
    return lines.join('\\n') + '\\n';
  };
  const stored = JSON.stringify({ patch: diff('src/parse.ts', 1024 * 1024 - 4096), summary: source.slice(400, 440).join(' ') });
  const { patch, summary } = await readRunTexts({ getText: async () => stored }, { textsKey: 'texts', patchKey: null, summaryKey: null });
  const reference = diff('src/parse.ts', 100_000);
  const issueText = source.slice(0, 400).join(' ');
  const candidate = rebuiltDiff(patch);
  const checks = verdictChecks(candidate, summary, reference, issueText);
  const prompt = buildPrompt(
    { issueText, referenceDiff: reference, omittedLockFiles: [], candidateDiff: candidate, candidateTruncated: false, maxDiffChars: 100_000 },
    'f'.repeat(32),
  );
  const body = JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 1024, system: prompt.system,
    messages: [{ role: 'user', content: [{ type: 'text', text: prompt.sharedPrompt }, { type: 'text', text: prompt.prompt }] }],
    output_format: { type: 'json_schema', schema: JUDGE_ANSWER_JSON_SCHEMA } });
  return { bytes: patch.length, body: body.length, hits: checks.screenHits.length };
}
`;

async function bundle(name: string, options: { entryPoints: string[] } | { stdin: { contents: string } }) {
  const outfile = join(scratch, name, 'index.mjs');
  await build({
    ...('stdin' in options
      ? { stdin: { ...options.stdin, resolveDir: root, sourcefile: `${name}.ts`, loader: 'ts' as const } }
      : options),
    outfile,
    ...FUNCTION_BUILD_OPTIONS,
    logLevel: 'error',
  });
  return new URL(`file://${outfile}`).href;
}

const judgeBundle = await bundle('judge', { entryPoints: [join(root, 'functions/judge/lambda.ts')] });
// The deployment bundles the configuration beside the code; the example's stands in.
copyFileSync(join(root, 'replay.config.example.json'), join(scratch, 'judge', BUNDLED_CONFIG_FILE));
const attemptBundle = await bundle('attempt', { stdin: { contents: ATTEMPT } });
const source = readFileSync(join(root, 'core/judge/judge-run.ts'), 'utf8').split('\n');

/** maxRSS in MB of a fresh process running `script`, with what it printed. */
function peak(script: string): { mb: number; out: string } {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, ...FUNCTION_ENV },
    encoding: 'utf8',
    input: JSON.stringify(source),
  });
  if (run.status !== 0) throw new Error(`the measured process failed: ${run.stderr}`);
  const [mb, out] = run.stdout.split('\t');
  return { mb: Number(mb), out: out ?? '' };
}
const report = `process.stdout.write((process.resourceUsage().maxRSS / 1024).toFixed(1) + '\\t' + out);`;
const floorScript = `const out = ''; ${report}`;
const importScript = `await import(${JSON.stringify(judgeBundle)}); const out = ''; ${report}`;
const attemptScript =
  `import { readFileSync } from 'node:fs'; await import(${JSON.stringify(judgeBundle)}); ` +
  `const { attempt } = await import(${JSON.stringify(attemptBundle)}); ` +
  `const out = JSON.stringify(await attempt(JSON.parse(readFileSync(0, 'utf8')))); ${report}`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rounds = { floor: [] as number[], imported: [] as number[], attempt: [] as number[] };
let sizes = '';
for (let round = 0; round < ROUNDS; round++) {
  rounds.floor.push(peak(floorScript).mb);
  rounds.imported.push(peak(importScript).mb);
  const run = peak(attemptScript);
  rounds.attempt.push(run.mb);
  sizes = run.out;
}
const { bytes, body } = JSON.parse(sizes) as { bytes: number; body: number };
console.log(
  `Judge function memory, peak resident (maxRSS) of a fresh Node ${process.version} process, median of ${ROUNDS} rounds:\n`,
);
console.log('| process | peak MB |');
console.log('|---|---|');
console.log(`| floor: Node, nothing imported | ${median(rounds.floor).toFixed(0)} |`);
console.log(`| the judge's bundle imported | ${median(rounds.imported).toFixed(0)} |`);
console.log(
  `| and one attempt's work: a ${(bytes / 1024).toFixed(0)} KB patch, a ${(body / 1024).toFixed(0)} KB request body | ` +
    `${median(rounds.attempt).toFixed(0)} |`,
);
console.log(`\nmax of the rounds for the attempt: ${Math.max(...rounds.attempt).toFixed(0)} MB`);
rmSync(scratch, { recursive: true, force: true });
