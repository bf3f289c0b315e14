// Named deployments: `cdk deploy -c deployment=NAME` builds a deployment whose every account-wide name (its
// stacks, its secrets, its Cognito domain, its CloudFront policies) starts with NAME, so two deployments, or
// one per region, share an account without colliding. The default deployment has no name and keeps the names
// deployments had before names existed, so a deployed stack is updated in place, never replaced. (Earlier
// versions called a named deployment a "stage"; a stage is now only a step of the pipeline, docs/contract.md §1.)
import { ConfigError } from '#schema/config.ts';

/** The stateful stack's name in the default deployment (a named one prefixes it). */
export const STATEFUL_STACK = 'ReplayBench-State';
/**
 * `-c replayIndexStep=N`: the table's indexes at step N of moving a table made before the narrower indexes
 * (core/storage-layout.ts tableIndexes; docs/deploy.md, "Narrower indexes"). Without it, the indexes of today.
 */
export const INDEX_STEP_CONTEXT_KEY = 'replayIndexStep';

/** The context key (`-c deployment=NAME`). */
export const DEPLOYMENT_CONTEXT_KEY = 'deployment';
/** What earlier versions read the name from; refused with a sentence rather than silently deploying the default. */
export const RETIRED_CONTEXT_KEY = 'stage';
/**
 * The cost-allocation tag on every resource: the deployment's name, `default` for the default deployment. Its key
 * keeps its first spelling: the account's billing settings activate it by that key, and Cost Explorer's history
 * is filed under it.
 */
export const DEPLOYMENT_TAG = 'replay-bench:stage';

// Cognito domain prefixes take lower-case letters, digits and inner hyphens only; 20 characters leave
// room for `-replay-bench-<account>` within its 63.
const DEPLOYMENT_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 20;

export class DeploymentNames {
  constructor(readonly name?: string) {}

  /** A stack, a CloudFront policy or a Cognito domain: `NAME-ReplayBench-State`. */
  prefixed(base: string): string {
    return this.name ? `${this.name}-${base}` : base;
  }

  /** The value of the deployment's cost-allocation tag. */
  get tagValue(): string {
    return this.name ?? 'default';
  }

  /** What every secret name of the deployment starts with: `NAME/`, or nothing for the default deployment. */
  get secretPrefix(): string {
    return this.name ? `${this.name}/` : '';
  }

  /** A secret: `NAME/Hosting/ModuleReportSecret/mac-studio-1`. */
  secret(base: string): string {
    return `${this.secretPrefix}${base}`;
  }
}

/**
 * The deployment a `-c deployment=` value names, or a ConfigError saying which names are allowed; a value under the
 * retired key `stage` is refused with the key to use instead.
 */
export function deploymentNamesFrom(contextValue: unknown, retiredValue?: unknown): DeploymentNames {
  if (retiredValue !== undefined && retiredValue !== '')
    throw new ConfigError(
      `-c ${RETIRED_CONTEXT_KEY}=${String(retiredValue)} is now -c ${DEPLOYMENT_CONTEXT_KEY}=${String(retiredValue)}: ` +
        `the same name, the same stacks and secrets (docs/deploy.md, "Named deployments").`,
    );
  if (contextValue === undefined || contextValue === '') return new DeploymentNames();
  const name = String(contextValue);
  if (name.length > MAX_NAME_LENGTH || !DEPLOYMENT_NAME.test(name))
    throw new ConfigError(
      `-c ${DEPLOYMENT_CONTEXT_KEY}=${name} is not a deployment name: use up to ${MAX_NAME_LENGTH} lower-case ` +
        `letters, digits and inner hyphens, starting with a letter (it starts stack, secret and Cognito domain names).`,
    );
  return new DeploymentNames(name);
}
