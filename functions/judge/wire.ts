// The judge's dependencies, in AWS and in local mode alike (functions/platform-resources.ts). Its settings come
// from the environment: the model and GitHub credentials (docs/judge.md) and JUDGE_MAX_DIFF_CHARS.
import { judgeModelProvider, referenceSourceProvider } from '#adapters/aws/judge-services.ts';
import { DEFAULT_MAX_DIFF_CHARS, type JudgeDeps } from '#core/judge/judge-run.ts';
import type { PlatformResources } from '../platform-resources.ts';

export const wire = (
  r: Pick<PlatformResources, 'config' | 'table' | 'data' | 'secrets' | 'clock'>,
  env: NodeJS.ProcessEnv,
): JudgeDeps => ({
  config: r.config,
  runs: r.table,
  attempts: r.table,
  issues: r.table,
  budget: r.table,
  judging: r.table,
  batches: r.table,
  objects: r.data,
  model: judgeModelProvider(env, r.secrets),
  reference: referenceSourceProvider(env, r.secrets),
  clock: r.clock,
  maxDiffChars: Number(env.JUDGE_MAX_DIFF_CHARS) || DEFAULT_MAX_DIFF_CHARS,
});
