// `npm run invite -- <email> <cockpit>` and `npm run invite -- --resend <email>` (docs/deploy.md, "Analysts").
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { invite, parseInvitation, regionOfUserPool } from '#infra/aws/operator/invite.ts';
import { runOperatorCommand } from '#infra/aws/operator/operator-command.ts';

await runOperatorCommand(async () => {
  const invitation = parseInvitation(process.argv.slice(2));
  // The pool's own region, whatever the shell's default; AWS_REGION still decides when it is set.
  const region = process.env.AWS_REGION || regionOfUserPool(invitation.userPoolId);
  return invite(new CognitoIdentityProviderClient({ region }), invitation);
});
