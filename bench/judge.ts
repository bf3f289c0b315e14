// Judge figures in local mode with the stand-ins (no network, no real model):
//  - end-to-end latency: signed run pushed → verdict visible at GET /api/spaces/{space}/runs/{id};
//  - prompt tokens per KB of diff: the judge's real prompts, sized with the stand-in's token estimate
//    (estimateTokens: no tokenizer here, so the figure is an estimate), fitted as fixed + per-KB.
// Diffs are built from this repository's own TypeScript, so the text is code, not filler.
//   npx tsx bench/judge.ts [--runs 30]
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pushDelivery } from '#runner/push.ts';
import { parseConfig } from '#schema/config.ts';
import { runId } from '#schema/run.ts';
import { startLocalMode } from '#infra/local/local-mode.ts';
import { estimateTokens, startAnthropicStandIn } from '#infra/local/stand-ins/anthropic-stand-in.ts';
import { startGitHubStandIn } from '#infra/local/stand-ins/github-stand-in.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' } } });
const RUNS = Number(values.runs);
const SIZES_KB = [1, 4, 16, 64];
const root = resolve(import.meta.dirname, '..');
const source = ['core/judge/judge-run.ts', 'shared/diff.ts', 'core/landing/land.ts', 'infra/local/local-mode.ts']
  .map((f) => readFileSync(join(root, f), 'utf8'))
  .join('\n')
  .split('\n');

/** A unified diff of about `kb` KB in one file: hunks of three context lines, two changed lines, three context lines. */
function diffOfSize(kb: number, path: string, offset: number): string {
  const lines = [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`];
  let size = lines.join('\n').length;
  for (let hunk = 0; size < kb * 1024; hunk++) {
    const at = (offset + hunk * 8) % source.length;
    const code = Array.from({ length: 8 }, (_, i) => source[(at + i) % source.length]!);
    const part = [
      `@@ -${at + 1},8 +${at + 1},8 @@`,
      ...code.slice(0, 3).map((l) => ` ${l}`),
      ...code.slice(3, 5).map((l) => `-${l}`),
      ...code.slice(3, 5).map((l) => `+${l.replace(/[a-z]/, (c) => c.toUpperCase())}`),
      ...code.slice(5).map((l) => ` ${l}`),
    ];
    lines.push(...part);
    size += part.join('\n').length + 1;
  }
  return `${lines.join('\n')}\n`;
}

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const prompts: { diffBytes: number; tokens: number }[] = [];
let pendingDiffBytes = 0;
const anthropic = await startAnthropicStandIn({
  answer: (request) => {
    prompts.push({
      diffBytes: pendingDiffBytes,
      tokens: estimateTokens(request.system) + estimateTokens(request.userText),
    });
    return JSON.stringify({
      verdict: 'resolved',
      rootCauseFound: true,
      sameFilesAsReference: true,
      testAdded: false,
      wouldCompile: true,
      reason: 'Same fix.',
    });
  },
});
const github = await startGitHubStandIn({ app: { appId: '1', installationId: '2', publicKey } });
const env = {
  ANTHROPIC_API_KEY: 'sk-bench',
  ANTHROPIC_BASE_URL: anthropic.url,
  GITHUB_API_URL: github.url,
  GITHUB_APP_ID: '1',
  GITHUB_APP_INSTALLATION_ID: '2',
  GITHUB_APP_PRIVATE_KEY: privateKey,
};
const dataDir = mkdtempSync(join(tmpdir(), 'replay-bench-judge-'));
const config = parseConfig({
  defaultJudgeModel: 'bench-judge',
  spaces: { Bench: { senders: ['mac-studio-1'], judge: { dailyCap: 100_000 } } },
});
const local = await startLocalMode({ config, dataDir, port: 0, env });
const key = readFileSync(local.generatedKeys[0]!.path, 'utf8');

const latencies: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const kb = SIZES_KB[i % SIZES_KB.length]!;
  const taskId = `judge-bench-${i}`;
  const base = i.toString(16).padStart(40, '0');
  const merge = (i + 1000).toString(16).padStart(40, '0');
  const reference = diffOfSize(kb, `src/module-${i}.ts`, i * 7);
  const candidate = diffOfSize(kb, `src/module-${i}.ts`, i * 7 + 3);
  github.setIssue('acme/widgets', 1000 + i, {
    title: `Task ${i} misbehaves`,
    body: 'Steps to reproduce: run it. Expected: no crash. Actual: a crash.',
  });
  github.setCompare('acme/widgets', base, merge, reference);
  await pushDelivery(
    local.url,
    'Bench',
    {
      kind: 'issue',
      host: 'mac-studio-1',
      sentAt: new Date().toISOString(),
      issue: { taskId, repo: 'acme/widgets', issueNumber: 1000 + i, baseSha: base, mergeSha: merge },
    },
    key,
  );
  const row = {
    model: 'qwen3-coder:30b',
    taskId,
    harnessVersion: 'h2',
    host: 'mac-studio-1',
    startedAt: '2026-11-29T10:00:00Z',
    finishedAt: '2026-11-29T10:09:00Z',
    outcome: 'finished',
  };
  const id = runId(row);
  // Wait for the issue to land so each measurement is push → verdict for the run alone.
  while (
    !(
      (await (await fetch(`${local.url}/api/spaces/Bench/issues`)).json()) as { issues: { taskId: string }[] }
    ).issues.some((x) => x.taskId === taskId)
  )
    await sleep(5);
  pendingDiffBytes = reference.length + candidate.length;
  const started = performance.now();
  await pushDelivery(
    local.url,
    'Bench',
    { kind: 'run', host: 'mac-studio-1', id, row, patch: candidate, patchTruncated: false, summary: 'bench' },
    key,
  );
  for (;;) {
    const res = await fetch(`${local.url}/api/spaces/Bench/runs/${encodeURIComponent(id)}`);
    if (res.status === 200 && ((await res.json()) as { judgeVerdict: string | null }).judgeVerdict) break;
    await sleep(5);
  }
  latencies.push(performance.now() - started);
}

await local.stop();
await Promise.all([anthropic.stop(), github.stop()]);
rmSync(dataDir, { recursive: true, force: true });

const sorted = [...latencies].sort((a, b) => a - b);
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(0);
// Least squares: tokens = fixed + perKb · (reference + candidate diff KB).
const xs = prompts.map((p) => p.diffBytes / 1024);
const ys = prompts.map((p) => p.tokens);
const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
const [mx, my] = [mean(xs), mean(ys)];
const slope = xs.reduce((s, x, i) => s + (x - mx) * (ys[i]! - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0);
console.log(
  `judge end to end in local mode (push → verdict readable), ${RUNS} runs, diffs of ${SIZES_KB.join('/')} KB each side:`,
);
console.log(`  p50 ${pct(50)} ms   p95 ${pct(95)} ms   max ${sorted.at(-1)!.toFixed(0)} ms`);
console.log(`prompt size (estimated tokens, estimateTokens on the real prompt text):`);
console.log(
  `  fixed part ≈ ${(my - slope * mx).toFixed(0)} tokens; ≈ ${slope.toFixed(0)} tokens per KB of diff (reference + candidate)`,
);
for (const kb of SIZES_KB) {
  const sample = prompts.filter((p) => Math.round(p.diffBytes / 2048) === kb);
  if (sample.length)
    console.log(`  ${kb} KB + ${kb} KB diffs → ${mean(sample.map((p) => p.tokens)).toFixed(0)} tokens`);
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
