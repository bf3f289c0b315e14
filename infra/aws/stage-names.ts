// Stages: `cdk deploy -c stage=NAME` builds a deployment whose every account-wide name (its stacks, its
// secrets, its Cognito domain, its CloudFront policies) starts with NAME, so two stages, or one stage per
// region, share an account without colliding. The default stage has no name and keeps the names
// deployments had before stages existed, so a deployed stack is updated in place, never replaced.
import { ConfigError } from '#schema/config.ts';

/** The context key (`-c stage=NAME`). */
export const STAGE_CONTEXT_KEY = 'stage';
/** The cost-allocation tag on every resource: the stage's name, `default` for the default stage. */
export const STAGE_TAG = 'replay-bench:stage';

// Cognito domain prefixes take lower-case letters, digits and inner hyphens only; 20 characters leave
// room for `-replay-bench-<account>` within its 63.
const STAGE_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const MAX_STAGE_LENGTH = 20;

export class StageNames {
  constructor(readonly stage?: string) {}

  /** A stack, a CloudFront policy or a Cognito domain: `NAME-ReplayBench-State`. */
  prefixed(base: string): string {
    return this.stage ? `${this.stage}-${base}` : base;
  }

  /** The value of the stage's cost-allocation tag. */
  get tagValue(): string {
    return this.stage ?? 'default';
  }

  /** What every secret name of the stage starts with: `NAME/`, or nothing for the default stage. */
  get secretPrefix(): string {
    return this.stage ? `${this.stage}/` : '';
  }

  /** A secret: `NAME/Hosting/ModuleReportSecret/mac-studio-1`. */
  secret(base: string): string {
    return `${this.secretPrefix}${base}`;
  }
}

/** The stage a `-c stage=` value names, or a ConfigError saying which names are allowed. */
export function stageNamesFrom(contextValue: unknown): StageNames {
  if (contextValue === undefined || contextValue === '') return new StageNames();
  const stage = String(contextValue);
  if (stage.length > MAX_STAGE_LENGTH || !STAGE_NAME.test(stage))
    throw new ConfigError(
      `-c ${STAGE_CONTEXT_KEY}=${stage} is not a stage name: use up to ${MAX_STAGE_LENGTH} lower-case ` +
        `letters, digits and inner hyphens, starting with a letter (it starts stack, secret and Cognito domain names).`,
    );
  return new StageNames(stage);
}
