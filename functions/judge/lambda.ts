// The judge's AWS wiring, built once per cold start from the environment the stack sets.
import { DEFAULT_MAX_DIFF_CHARS } from '../../shared/judge/judge-run.ts';
import { systemClock } from '../../shared/ports.ts';
import { bucketStore, bundledConfig, requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { tableStore } from '../../shared/adapters/aws/dynamo-store.ts';
import { judgeModelProvider, referenceSourceProvider } from '../../shared/adapters/aws/judge-services.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { createJudgeHandler } from './handler.ts';

const store = tableStore({}, requiredEnv('TABLE_NAME'));

export const handler = createJudgeHandler(
  {
    config: bundledConfig(),
    runs: store,
    attempts: store,
    issues: store,
    budget: store,
    judging: store,
    objects: bucketStore({}, requiredEnv('DATA_BUCKET')),
    model: judgeModelProvider(),
    reference: referenceSourceProvider(),
    clock: systemClock,
    maxDiffChars: Number(process.env.JUDGE_MAX_DIFF_CHARS) || DEFAULT_MAX_DIFF_CHARS,
  },
  instrumentation('judge'),
);
