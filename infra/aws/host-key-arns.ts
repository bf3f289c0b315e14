// The ARNs that host-key grants name. A role that lists one ARN per host outgrows IAM's policy size limits
// at a few dozen hosts, so functions are granted every key under a secretConfigKey at once
// (`secret:Hosting/ModuleReportSecret/*`): one ARN per key prefix, whatever the number of hosts. A grant
// for one host alone ends `{host}-??????`: Secrets Manager ends every ARN with "-" and six random
// characters, so mac-1's grant never matches mac-10-AbCdEf.
import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { keySecretFolder, keySecretName } from '#shared/key-names.ts';

const secretArn = (scope: IConstruct, resourceName: string) =>
  Stack.of(scope).formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });

/** Every host key under one secretConfigKey, in the deployment whose secret names start with `secretPrefix`. */
export const hostKeyFolderArn = (scope: IConstruct, secretPrefix: string, secretConfigKey: string): string =>
  secretArn(scope, `${secretPrefix}${keySecretFolder(secretConfigKey)}/*`);

/** One host's key and no other host's, in the deployment whose secret names start with `secretPrefix`. */
export const hostKeyArn = (scope: IConstruct, secretPrefix: string, secretConfigKey: string, host: string): string =>
  secretArn(scope, `${secretPrefix}${keySecretName(secretConfigKey, host)}-??????`);

/** The distinct key prefixes, in a stable order, so a role holds one statement resource per prefix. */
export const keyPrefixes = (secretConfigKeys: Iterable<string>): string[] => [...new Set(secretConfigKeys)].sort();

/**
 * cdk-nag's finding for each folder wildcard, acknowledged on the role that holds it, with what the role
 * does with the keys under it.
 */
export function acknowledgeHostKeyFolders(
  role: IConstruct,
  secretPrefix: string,
  secretConfigKeys: string[],
  use: string,
): void {
  Validations.of(role).acknowledge(
    ...secretConfigKeys.map((secretConfigKey) => {
      const folder = `${secretPrefix}${keySecretFolder(secretConfigKey)}`;
      return {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${folder}/*]`,
        reason:
          `Host keys are one secret per runner host under ${folder}/, declared by the configuration; ` +
          `one ARN for all of them keeps the role inside IAM's policy size limit at any number of hosts. ${use}`,
      };
    }),
  );
}
