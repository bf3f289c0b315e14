// `npm run invite -- <email> <cockpit>`: gives an analyst a private cockpit. It creates the Cognito user
// (Cognito mails a temporary password; the pool has no SMS, so the invitation asks for email explicitly)
// and adds it to the cockpit's group; an analyst who already has an account just gains the group.
// `npm run invite -- --resend <email>` mails the invitation again to someone who has not signed in yet.
// The user pool comes from `--user-pool-id` or the outputs file `npm run deploy` writes.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  CognitoIdentityProviderClient,
  GetGroupCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import * as z from '#schema/zod.ts';
import { analystGroupOf } from '#core/read/cockpit-access.ts';
import { OperatorError } from './operator-command.ts';

export const DEFAULT_OUTPUTS_FILE = 'cdk-outputs.json';
const USER_POOL_OUTPUT = 'AnalystsUserPoolId';

export type Invitation =
  | { kind: 'invite'; userPoolId: string; email: string; cockpit: string }
  | { kind: 'resend'; userPoolId: string; email: string };

const awsErrorName = (e: unknown) => (e instanceof Error ? e.name : '');

/** Creates the analyst (or finds them) and adds the cockpit's group; answers one sentence for the operator. */
export async function invite(client: CognitoIdentityProviderClient, invitation: Invitation): Promise<string> {
  const { userPoolId: UserPoolId, email } = invitation;
  if (invitation.kind === 'resend') {
    try {
      await client.send(
        new AdminCreateUserCommand({
          UserPoolId,
          Username: email,
          MessageAction: 'RESEND',
          DesiredDeliveryMediums: ['EMAIL'],
        }),
      );
    } catch (e) {
      if (awsErrorName(e) === 'UserNotFoundException')
        throw new OperatorError(`${email} has no account in ${UserPoolId}; invite them with a cockpit first.`);
      if (awsErrorName(e) === 'UnsupportedUserStateException')
        throw new OperatorError(
          `${email} has already signed in and set a password, so there is no invitation to resend; a forgotten password is reset from the sign-in page.`,
        );
      throw e;
    }
    return `Mailed ${email} a new invitation with a new temporary password.`;
  }

  const GroupName = analystGroupOf(invitation.cockpit);
  try {
    await client.send(new GetGroupCommand({ UserPoolId, GroupName }));
  } catch (e) {
    if (awsErrorName(e) === 'ResourceNotFoundException')
      throw new OperatorError(
        `${UserPoolId} has no group ${GroupName}: ${invitation.cockpit} is not a ` +
          `cockpit of this deployment that requires sign-in (a public cockpit has no analysts).`,
      );
    throw e;
  }
  let created = true;
  try {
    await client.send(
      new AdminCreateUserCommand({
        UserPoolId,
        Username: email,
        UserAttributes: [
          { Name: 'email', Value: email },
          { Name: 'email_verified', Value: 'true' },
        ],
        DesiredDeliveryMediums: ['EMAIL'],
      }),
    );
  } catch (e) {
    if (awsErrorName(e) !== 'UsernameExistsException') throw e;
    created = false;
  }
  await client.send(new AdminAddUserToGroupCommand({ UserPoolId, Username: email, GroupName }));
  return created
    ? `Invited ${email} to ${invitation.cockpit}: Cognito mails a temporary password; the first sign-in sets a password and an authenticator app.`
    : `${email} already has an account; added to ${GroupName}, which opens ${invitation.cockpit} at their next sign-in.`;
}

/** The user pool named by the outputs file of `npm run deploy` (`cdk deploy --outputs-file`). */
export function userPoolFromOutputs(path: string): string {
  let outputs: Record<string, Record<string, string>>;
  try {
    outputs = JSON.parse(readFileSync(path, 'utf8')) as typeof outputs;
  } catch {
    throw new OperatorError(
      `Cannot read the deployment's outputs from ${path}; name the user pool with --user-pool-id or the file with --outputs.`,
    );
  }
  const pools = Object.values(outputs).flatMap((stack) => (stack[USER_POOL_OUTPUT] ? [stack[USER_POOL_OUTPUT]] : []));
  if (pools.length !== 1)
    throw new OperatorError(
      `${path} names no analysts' user pool (${USER_POOL_OUTPUT}): does a cockpit of this deployment require sign-in?`,
    );
  return pools[0]!;
}

const USAGE = 'usage: npm run invite -- <email> <cockpit> | --resend <email> [--user-pool-id ID] [--outputs FILE]';
const emailSchema = z.email();

/** The command line, validated before any AWS call. */
export function parseInvitation(args: string[]): Invitation {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        resend: { type: 'boolean' },
        'user-pool-id': { type: 'string' },
        outputs: { type: 'string', default: DEFAULT_OUTPUTS_FILE },
      },
    });
  } catch (e) {
    throw new OperatorError(`${(e as Error).message} ${USAGE}`);
  }
  const { values, positionals } = parsed;
  const resend = values.resend === true;
  const [email, cockpit, ...rest] = positionals;
  if (!email || rest.length > 0 || (resend ? cockpit !== undefined : !cockpit)) throw new OperatorError(USAGE);
  if (!emailSchema.safeParse(email).success) throw new OperatorError(`${email} is not an email address. ${USAGE}`);
  const userPoolId = values['user-pool-id'] ?? userPoolFromOutputs(values.outputs);
  return resend ? { kind: 'resend', userPoolId, email } : { kind: 'invite', userPoolId, email, cockpit: cockpit! };
}

/** The region a user pool lives in: its id starts with it (`eu-west-1_AbCdEfGhI`). */
export const regionOfUserPool = (userPoolId: string): string => userPoolId.split('_')[0]!;
