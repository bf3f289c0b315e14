// The judge's AWS wiring, built once per cold start from the environment the stack sets.
import { DEFAULT_MAX_DIFF_CHARS } from '../../shared/core/judge/judge-run.ts';
import { systemClock } from '../../shared/ports.ts';
import { bundledConfig, requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { DynamoStore, dynamoClient } from '../../shared/adapters/aws/dynamo-store.ts';
import { S3ObjectStore, s3Client } from '../../shared/adapters/aws/s3-object-store.ts';
import { SecretValues, secretsManagerClient } from '../../shared/adapters/aws/secret-values.ts';
import { judgeModelProvider, referenceSourceProvider } from '../../shared/adapters/aws/judge-services.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { createJudgeHandler } from './handler.ts';

const store = new DynamoStore(dynamoClient({}), requiredEnv('TABLE_NAME'));
const secrets = new SecretValues(secretsManagerClient({}));

export const handler = createJudgeHandler(
  {
    config: bundledConfig(),
    runs: store,
    attempts: store,
    issues: store,
    budget: store,
    judging: store,
    objects: new S3ObjectStore(s3Client({}), requiredEnv('DATA_BUCKET')),
    model: judgeModelProvider(process.env, secrets),
    reference: referenceSourceProvider(process.env, secrets),
    clock: systemClock,
    maxDiffChars: Number(process.env.JUDGE_MAX_DIFF_CHARS) || DEFAULT_MAX_DIFF_CHARS,
  },
  instrumentation('judge'),
);
