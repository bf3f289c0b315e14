// The analysts' user pool: invite-only, MFA required, one group per private cockpit. Identity data, retained.
import { RemovalPolicy, Validations, type Stack } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  UserPool,
  UserPoolEmail,
  type UserPoolDomain,
  type UserPoolGroup,
} from 'aws-cdk-lib/aws-cognito';
import { analystGroupOf } from '#core/read/cockpit-access.ts';
import type { ReplayConfig } from '#schema/config.ts';
import type { DeploymentNames } from '../deployment-names.ts';

export interface Analysts {
  userPool: UserPool;
  domain: UserPoolDomain;
  /** One group per private cockpit, by cockpit name: its members may read that cockpit. */
  groups: Map<string, UserPoolGroup>;
}

export function analystPool(scope: Stack, config: ReplayConfig, names: DeploymentNames): Analysts {
  const userPool = new UserPool(scope, 'Analysts', {
    selfSignUpEnabled: false,
    signInAliases: { email: true },
    autoVerify: { email: true },
    mfa: Mfa.REQUIRED,
    mfaSecondFactor: { otp: true, sms: false },
    passwordPolicy: {
      minLength: 12,
      requireLowercase: true,
      requireUppercase: true,
      requireDigits: true,
      requireSymbols: true,
    },
    accountRecovery: AccountRecovery.EMAIL_ONLY,
    // Cognito's own mailer sends at most 50 e-mails a day (invitations, resets); a verified SES identity
    // lifts that to the SES account's quota (docs/deploy.md, "First week in a new account").
    email: config.cognito
      ? UserPoolEmail.withSES({ fromEmail: config.cognito.sesFrom, sesRegion: config.cognito.sesRegion })
      : UserPoolEmail.withCognito(),
    featurePlan: FeaturePlan.ESSENTIALS,
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  Validations.of(userPool).acknowledge({
    id: 'AwsSolutions-COG8',
    reason:
      'Threat protection needs the Plus plan, billed per active user; the pool is invite-only (no self sign-up) ' +
      'with MFA required for every analyst, and it guards read-only benchmark data.',
  });
  const domain = userPool.addDomain('Domain', {
    cognitoDomain: { domainPrefix: names.prefixed(`replay-bench-${scope.account}`) },
  });
  // Here rather than beside each cockpit: memberships are identity data and outlive a pipeline redeploy.
  const groups = new Map<string, UserPoolGroup>();
  for (const [name, cockpit] of Object.entries(config.cockpits)) {
    if (cockpit.public) continue;
    groups.set(
      name,
      userPool.addGroup(`Group-${name}`, {
        groupName: analystGroupOf(name),
        description: `Analysts who may read cockpit ${name}`,
      }),
    );
  }
  return { userPool, domain, groups };
}
