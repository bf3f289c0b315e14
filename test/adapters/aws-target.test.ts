// Where `npm run deploy` deploys, through the SDK's own resolvers pointed at scratch config files (no network,
// no instance metadata): the region as the CLIs find it, AWS_DEFAULT_REGION included, and one sentence with
// the fixing command for each missing piece, an IAM Identity Center (SSO) profile's expired session
// included; the account's concurrency from a stand-in speaking Lambda's REST protocol; and the command itself,
// run without a region, answering with that sentence rather than a stack trace.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { lambdaConcurrency, resolveAwsTarget, sdkResolvers, type AwsTarget } from '#infra/aws/operator/aws-target.ts';
import { OperatorError } from '#infra/aws/operator/operator-command.ts';
import { PROJECT_ROOT } from '../infra/paths.ts';
import { tempDir } from '../helpers/run-folders.ts';

const AWS_VARIABLES = [
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_PROFILE',
  'AWS_DEFAULT_PROFILE',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_CONFIG_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_EC2_METADATA_DISABLED',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'HOME',
] as const;
const saved = Object.fromEntries(AWS_VARIABLES.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const name of AWS_VARIABLES)
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
});

/** A home of its own with this ~/.aws/config, and nothing else of AWS in the environment. */
function awsHome(config: string, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = tempDir('replay-aws-home-');
  mkdirSync(join(home, '.aws'));
  writeFileSync(join(home, '.aws', 'config'), config);
  writeFileSync(join(home, '.aws', 'credentials'), '');
  for (const name of AWS_VARIABLES) delete process.env[name];
  Object.assign(process.env, {
    HOME: home,
    AWS_CONFIG_FILE: join(home, '.aws', 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, '.aws', 'credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    ...env,
  });
  return process.env;
}

const refusal = async (promise: Promise<unknown>): Promise<string> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OperatorError);
  return (error as Error).message;
};

const KEYS = { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' };

describe('the region', () => {
  it('is AWS_REGION, else AWS_DEFAULT_REGION (which the JavaScript SDK alone ignores), else the profile’s', async () => {
    const profileRegion = '[default]\nregion = ap-southeast-2\n';
    let env = awsHome(profileRegion, { ...KEYS, AWS_REGION: 'us-west-2', AWS_DEFAULT_REGION: 'eu-central-1' });
    expect(await resolveAwsTarget(env, sdkResolvers())).toEqual({
      region: 'us-west-2',
      regionFrom: 'AWS_REGION',
      profile: 'default',
    });
    env = awsHome(profileRegion, { ...KEYS, AWS_DEFAULT_REGION: 'eu-central-1' });
    expect(await resolveAwsTarget(env, sdkResolvers())).toMatchObject({
      region: 'eu-central-1',
      regionFrom: 'AWS_DEFAULT_REGION',
    });
    // A named profile's own keys: with AWS_PROFILE set, the SDK skips keys in the environment.
    env = awsHome(
      '[profile bench]\nregion = ap-southeast-2\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = secret\n',
      { AWS_PROFILE: 'bench' },
    );
    expect(await resolveAwsTarget(env, sdkResolvers())).toEqual({
      region: 'ap-southeast-2',
      regionFrom: 'profile bench',
      profile: 'bench',
    });
  });

  it('missing everywhere is one sentence with the commands that set it', async () => {
    const env = awsHome('', KEYS);
    expect(await refusal(resolveAwsTarget(env, sdkResolvers()))).toBe(
      'No AWS region: neither AWS_REGION, AWS_DEFAULT_REGION nor profile default names one; set it with ' +
        '`aws configure set region eu-west-1` or `export AWS_REGION=eu-west-1`.',
    );
  });
});

describe('the credentials', () => {
  it('missing altogether: how to sign in with IAM Identity Center or access keys', async () => {
    const env = awsHome('[default]\nregion = eu-west-1\n');
    expect(await refusal(resolveAwsTarget(env, sdkResolvers()))).toMatch(
      /^No AWS credentials for profile default: sign in with `aws configure sso` then `aws sso login` \(IAM Identity Center\), or `aws configure` \(access keys\)/,
    );
  });

  it('of an IAM Identity Center profile whose session was never started or has expired: aws sso login for that profile', async () => {
    const env = awsHome(
      [
        '[profile dev]',
        'sso_session = corp',
        'sso_account_id = 123456789012',
        'sso_role_name = BenchDeployer',
        'region = eu-west-1',
        '[sso-session corp]',
        'sso_start_url = https://corp.awsapps.com/start',
        'sso_region = eu-west-1',
        'sso_registration_scopes = sso:account:access',
        '',
      ].join('\n'),
      { AWS_PROFILE: 'dev' },
    );
    expect(await refusal(resolveAwsTarget(env, sdkResolvers()))).toBe(
      'The IAM Identity Center (SSO) session of profile dev has expired or was never started: run ' +
        '`aws sso login --profile dev`, then deploy again.',
    );
  });
});

describe("the account's Lambda concurrency (GetAccountSettings)", () => {
  let server: Server;
  let answer: { status: number; body: unknown };
  const paths: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      paths.push(`${req.method} ${req.url}`);
      res.writeHead(answer.status, { 'content-type': 'application/json', 'x-amzn-errortype': 'AccessDeniedException' });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const target: AwsTarget = { region: 'eu-west-1', regionFrom: 'AWS_REGION', profile: 'default' };
  const client = () =>
    new LambdaClient({
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      maxAttempts: 1,
    });

  it("reads the account's limit and what is left unreserved", async () => {
    answer = {
      status: 200,
      body: { AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 }, AccountUsage: {} },
    };
    expect(await lambdaConcurrency(client(), target)).toEqual({ limit: 10, unreserved: 10 });
    expect(paths.at(-1)).toBe('GET /2016-08-19/account-settings');
  });

  it('turns AWS refusing the credentials into one sentence naming the profile and region', async () => {
    answer = { status: 403, body: { message: 'not allowed' } };
    expect(await refusal(lambdaConcurrency(client(), target))).toMatch(
      /^AWS refused the credentials of profile default in eu-west-1 \(AccessDeniedException: not allowed\); check them with `aws sts get-caller-identity`\.$/,
    );
  });
});

describe('npm run deploy without a region', () => {
  it('answers one sentence and exit 2, never a stack trace', async () => {
    const env = awsHome('', KEYS);
    const config = join(tempDir('replay-deploy-region-'), 'replay.config.json');
    writeFileSync(config, JSON.stringify({ spaces: { S: { senders: ['mac-1'] } } }));
    const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/deploy.ts', '--config', config], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { ...env, NODE_OPTIONS: '' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/^No AWS region: .* `export AWS_REGION=eu-west-1`\.$/);
  });
});
