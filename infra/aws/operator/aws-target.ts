// Where `npm run deploy` deploys, found the way the AWS CLI and the CDK CLI find it: the region from
// AWS_REGION, then AWS_DEFAULT_REGION (which the JavaScript SDK alone ignores), then the profile's `region`;
// the credentials through the SDK's default chain (environment keys, IAM Identity Center (SSO) profiles, the
// shared files, a credential process, container and instance roles). A missing piece is one sentence and
// the command that supplies it, before anything is bootstrapped or deployed; the region found is handed to
// every `cdk` command, so they deploy where this command looked.
import { GetAccountSettingsCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { OperatorError } from './operator-command.ts';

export interface AwsTarget {
  region: string;
  /** Where the region came from, for the line the deploy prints. */
  regionFrom: string;
  profile: string;
}

/** The Lambda concurrency quota of the account in the target region (GetAccountSettings). */
export interface LambdaConcurrency {
  limit: number;
  unreserved: number;
}

/** Below this, the deploy warns: a new account starts at 10. */
export const CONCURRENCY_WARNING_BELOW = 100;
/** The Service Quotas code of Lambda's "Concurrent executions". */
export const CONCURRENCY_QUOTA_CODE = 'L-B99A9384';

const profileOf = (env: NodeJS.ProcessEnv) => env.AWS_PROFILE || env.AWS_DEFAULT_PROFILE || 'default';

/**
 * The region and credentials for this environment; `sdkRegion` and `sdkCredentials` are the SDK's own
 * resolvers for the profile (a client's `config.region()` and `config.credentials()`).
 */
export async function resolveAwsTarget(
  env: NodeJS.ProcessEnv,
  sdk: { region(): Promise<string>; credentials(): Promise<unknown> },
): Promise<AwsTarget> {
  const profile = profileOf(env);
  const profileFlag = profile === 'default' ? '' : ` --profile ${profile}`;
  let region: string | undefined;
  let regionFrom = '';
  if (env.AWS_REGION) [region, regionFrom] = [env.AWS_REGION, 'AWS_REGION'];
  else if (env.AWS_DEFAULT_REGION) [region, regionFrom] = [env.AWS_DEFAULT_REGION, 'AWS_DEFAULT_REGION'];
  else {
    region = await sdk.region().catch(() => undefined);
    regionFrom = `profile ${profile}`;
  }
  if (!region)
    throw new OperatorError(
      `No AWS region: neither AWS_REGION, AWS_DEFAULT_REGION nor profile ${profile} names one; ` +
        `set it with \`aws configure set region eu-west-1${profileFlag}\` or \`export AWS_REGION=eu-west-1\`.`,
    );
  try {
    await sdk.credentials();
  } catch (e) {
    throw new OperatorError(credentialsSentence(e, profile, profileFlag));
  }
  return { region, regionFrom, profile };
}

/** What the SDK's refusal means for the operator, and the command that fixes it. */
function credentialsSentence(error: unknown, profile: string, profileFlag: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/sso|token/i.test(message))
    return (
      `The IAM Identity Center (SSO) session of profile ${profile} has expired or was never started: ` +
      `run \`aws sso login${profileFlag}\`, then deploy again.`
    );
  if (/profile/i.test(message) && /not found|could not find|does not exist/i.test(message))
    return (
      `AWS_PROFILE names profile ${profile}, which ~/.aws/config does not have: create it with ` +
      `\`aws configure sso${profileFlag}\` (IAM Identity Center) or \`aws configure${profileFlag}\` (access keys).`
    );
  return (
    `No AWS credentials for profile ${profile}: sign in with \`aws configure sso${profileFlag}\` then ` +
    `\`aws sso login${profileFlag}\` (IAM Identity Center), or \`aws configure${profileFlag}\` (access keys), or name ` +
    `another profile with AWS_PROFILE=NAME. (${message.split('\n')[0]})`
  );
}

/** The account's Lambda concurrency in the target region; AWS refusing the credentials is one sentence. */
export async function lambdaConcurrency(client: LambdaClient, target: AwsTarget): Promise<LambdaConcurrency> {
  try {
    const { AccountLimit } = await client.send(new GetAccountSettingsCommand({}));
    return {
      limit: AccountLimit?.ConcurrentExecutions ?? 0,
      unreserved: AccountLimit?.UnreservedConcurrentExecutions ?? 0,
    };
  } catch (e) {
    const error = e as Error;
    throw new OperatorError(
      `AWS refused the credentials of profile ${target.profile} in ${target.region} ` +
        `(${error.name}: ${error.message}); check them with \`aws sts get-caller-identity\`.`,
    );
  }
}

/** The lines the deploy prints about the account's concurrency: the figure, and a warning below 100. */
export function concurrencyReport({ limit, unreserved }: LambdaConcurrency, target: AwsTarget): string[] {
  const lines = [`Lambda concurrency in ${target.region}: ${limit} concurrent executions (${unreserved} unreserved).`];
  if (limit < CONCURRENCY_WARNING_BELOW)
    lines.push(
      `Warning: below ${CONCURRENCY_WARNING_BELOW}, ingest, landing, judging and the cockpits share ${limit} executions ` +
        `and a busy hour throttles them (docs/deploy.md, "First week in a new account"). Ask for 1,000: ` +
        `aws service-quotas request-service-quota-increase --service-code lambda --quota-code ${CONCURRENCY_QUOTA_CODE} ` +
        `--desired-value 1000 --region ${target.region}`,
    );
  return lines;
}

/** The SDK's resolvers for the environment's profile: what `resolveAwsTarget` asks. */
export function sdkResolvers(region?: string): { region(): Promise<string>; credentials(): Promise<unknown> } {
  const client = new LambdaClient(region ? { region } : {});
  return { region: () => client.config.region(), credentials: () => client.config.credentials() };
}
