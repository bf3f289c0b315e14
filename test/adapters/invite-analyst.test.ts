// `npm run invite` against a stand-in that speaks Cognito's wire protocol and, like the deployed pool, has
// no SMS: the invitation must ask for email, or it never arrives.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { invite, parseInvitation, userPoolFromOutputs } from '#infra/aws/operator/invite.ts';
import { OperatorError } from '#infra/aws/operator/operator-command.ts';
import { analystGroupOf } from '#core/read/cockpit-access.ts';
import { startCognitoStandIn, type CognitoStandIn } from '../helpers/cognito-stand-in.ts';
import { PROJECT_ROOT } from '../infra/synth.ts';

const POOL = 'eu-west-1_AbCdEfGhI';
let cognito: CognitoStandIn;
let client: CognitoIdentityProviderClient;
const scratch = mkdtempSync(join(tmpdir(), 'replay-invite-'));

beforeAll(async () => {
  cognito = await startCognitoStandIn(POOL, [analystGroupOf('SmallModelsBenchmarks'), analystGroupOf('Other')]);
  client = new CognitoIdentityProviderClient({
    region: 'eu-west-1',
    endpoint: cognito.endpoint,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
  });
});
afterAll(async () => {
  client.destroy();
  await cognito.stop();
});

const refusal = async (run: () => Promise<unknown>): Promise<string> => {
  try {
    await run();
  } catch (e) {
    if (e instanceof OperatorError) return e.message;
    throw e;
  }
  throw new Error('expected a refusal');
};

describe('inviting an analyst', () => {
  it('creates the user with an email invitation, verified address, and adds the cockpit group', async () => {
    const said = await invite(client, {
      kind: 'invite',
      userPoolId: POOL,
      email: 'ada@example.com',
      cockpit: 'SmallModelsBenchmarks',
    });
    expect(said).toMatch(/^Invited ada@example\.com to SmallModelsBenchmarks/);
    const ada = cognito.users.get('ada@example.com')!;
    expect(ada.attributes).toEqual({ email: 'ada@example.com', email_verified: 'true' });
    expect(ada.invitations).toEqual(['ada@example.com']);
    expect([...ada.groups]).toEqual(['cockpit-SmallModelsBenchmarks']);
    expect(cognito.calls.find((c) => c.target === 'AdminCreateUser')!.body.DesiredDeliveryMediums).toEqual(['EMAIL']);
  });

  it('adds another cockpit to an existing analyst without a second invitation', async () => {
    const said = await invite(client, { kind: 'invite', userPoolId: POOL, email: 'ada@example.com', cockpit: 'Other' });
    expect(said).toMatch(/already has an account; added to cockpit-Other/);
    const ada = cognito.users.get('ada@example.com')!;
    expect([...ada.groups].sort()).toEqual(['cockpit-Other', 'cockpit-SmallModelsBenchmarks']);
    expect(ada.invitations).toHaveLength(1);
  });

  it('refuses a cockpit without a group (unknown or public) before creating anyone', async () => {
    const before = cognito.users.size;
    expect(
      await refusal(() =>
        invite(client, { kind: 'invite', userPoolId: POOL, email: 'bob@example.com', cockpit: 'PublicDemo' }),
      ),
    ).toMatch(/no group cockpit-PublicDemo: PublicDemo is not a cockpit of this deployment that requires sign-in/);
    expect(cognito.users.size).toBe(before);
  });

  it('resends the invitation by email to someone who has not signed in yet', async () => {
    const said = await invite(client, { kind: 'resend', userPoolId: POOL, email: 'ada@example.com' });
    expect(said).toMatch(/Mailed ada@example\.com a new invitation/);
    expect(cognito.users.get('ada@example.com')!.invitations).toHaveLength(2);
    const resend = cognito.calls.filter((c) => c.target === 'AdminCreateUser').at(-1)!.body;
    expect(resend).toMatchObject({ MessageAction: 'RESEND', DesiredDeliveryMediums: ['EMAIL'] });
  });

  it('says why a resend is impossible: no such analyst, or one who already signed in', async () => {
    expect(
      await refusal(() => invite(client, { kind: 'resend', userPoolId: POOL, email: 'nobody@example.com' })),
    ).toMatch(/no account in eu-west-1_AbCdEfGhI; invite them with a cockpit first/);
    cognito.users.get('ada@example.com')!.status = 'CONFIRMED';
    expect(await refusal(() => invite(client, { kind: 'resend', userPoolId: POOL, email: 'ada@example.com' }))).toMatch(
      /already signed in and set a password/,
    );
  });
});

describe('the command line', () => {
  const outputs = join(scratch, 'cdk-outputs.json');
  writeFileSync(
    outputs,
    JSON.stringify({
      'ReplayBench-State': { AnalystsUserPoolId: POOL },
      'ReplayBench-Pipeline': { AlarmTopicArn: 'x' },
    }),
  );

  it('reads the user pool from the outputs file npm run deploy writes, or from --user-pool-id', () => {
    expect(userPoolFromOutputs(outputs)).toBe(POOL);
    expect(parseInvitation(['a@example.com', 'C', '--outputs', outputs])).toEqual({
      kind: 'invite',
      userPoolId: POOL,
      email: 'a@example.com',
      cockpit: 'C',
    });
    expect(parseInvitation(['--resend', 'a@example.com', '--user-pool-id', 'us-east-1_X'])).toEqual({
      kind: 'resend',
      userPoolId: 'us-east-1_X',
      email: 'a@example.com',
    });
  });

  it.each([
    [[], /^usage: npm run invite/],
    [['a@example.com'], /^usage/],
    [['--resend', 'a@example.com', 'C'], /^usage/],
    [['not-an-email', 'C', '--user-pool-id', POOL], /not-an-email is not an email address/],
    [['a@example.com', 'C', '--outputs', join(scratch, 'absent.json')], /Cannot read the deployment's outputs/],
    [['a@example.com', 'C', '--colour'], /Unknown option '--colour'/],
  ])('refuses %j with a sentence', (args, message) => {
    expect(() => parseInvitation(args)).toThrow(message);
  });

  it('npm run invite invites over the wire with the SDK, and exits 2 with one line on a refusal', async () => {
    const env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: cognito.endpoint,
      AWS_REGION: '',
      AWS_PROFILE: '',
      AWS_CONFIG_FILE: join(scratch, 'no-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(scratch, 'no-credentials'),
    };
    // Asynchronously: the stand-in answers from this process.
    const run = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await promisify(execFile)(
          process.execPath,
          ['--import', 'tsx', 'bin/invite.ts', ...args],
          { cwd: PROJECT_ROOT, env, encoding: 'utf8' },
        );
        return { status: 0, stdout, stderr };
      } catch (e) {
        const failed = e as { code: number; stdout: string; stderr: string };
        return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    const ok = await run('grace@example.com', 'SmallModelsBenchmarks', '--outputs', outputs);
    expect({ status: ok.status, stderr: ok.stderr }).toEqual({ status: 0, stderr: '' });
    expect(ok.stdout).toMatch(/^Invited grace@example\.com/);
    expect([...cognito.users.get('grace@example.com')!.groups]).toEqual(['cockpit-SmallModelsBenchmarks']);
    const refused = await run('grace@example.com', 'Nowhere', '--outputs', outputs);
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
  });
});
