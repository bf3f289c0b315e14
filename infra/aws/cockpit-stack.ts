// The cockpits, spread over a fixed number of stacks by a hash of each cockpit's name. A cockpit is about
// 20 CloudFormation resources and a stack may hold 500, so one stack could not hold 100 cockpits. A hash
// keeps each cockpit in the same stack whatever other cockpits are added or removed (moving one would
// replace its distribution), and every stack is always synthesized, so a stack whose last cockpit was
// removed is deployed without it rather than left behind still publishing it.
import { CfnOutput, CfnWaitConditionHandle, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { sha256Hex } from '#shared/sha256.ts';
import { ConfigError, type ReplayConfig } from './deployment-config.ts';
import type { PipelineState } from './stateful-stack.ts';
import { Cockpit } from './constructs/cockpit.ts';
import type { Alarms } from './constructs/alarms.ts';
import type { CockpitHeaders } from './constructs/cockpit-headers.ts';

export const COCKPIT_STACKS = 10;
/** 22 signed-in cockpits and the stack's own resources stay below 500 (test/infra/scale.test.ts). */
export const MAX_COCKPITS_PER_STACK = 22;

/** Which of the cockpit stacks (0 to COCKPIT_STACKS − 1) holds a cockpit: a function of its name alone. */
export const cockpitStackIndex = (cockpit: string): number =>
  Number.parseInt(sha256Hex(cockpit).slice(0, 8), 16) % COCKPIT_STACKS;

/** The cockpits of each stack, or a ConfigError naming a stack that would hold too many. */
export function cockpitsByStack(config: ReplayConfig, stackName: (index: number) => string): string[][] {
  const stacks: string[][] = Array.from({ length: COCKPIT_STACKS }, () => []);
  for (const name of Object.keys(config.cockpits)) stacks[cockpitStackIndex(name)]!.push(name);
  stacks.forEach((names, index) => {
    if (names.length > MAX_COCKPITS_PER_STACK)
      throw new ConfigError(
        `Cockpits ${names.join(', ')} (${names.length}) all fall into stack ${stackName(index)}, which holds at most ` +
          `${MAX_COCKPITS_PER_STACK} (CloudFormation allows 500 resources per stack); a cockpit's stack follows from its name, so rename one of them.`,
      );
  });
  return stacks;
}

export interface CockpitStackProps extends StackProps {
  config: ReplayConfig;
  state: PipelineState;
  headers: CockpitHeaders;
  alarms: Alarms;
  dashboardDir: string;
  cockpits: string[];
}

export class CockpitStack extends Stack {
  readonly cockpits: Map<string, Cockpit>;

  constructor(scope: Construct, id: string, props: CockpitStackProps) {
    super(scope, id, props);
    const { config, state, headers, alarms, dashboardDir } = props;
    this.cockpits = new Map(
      props.cockpits.map((name) => [
        name,
        new Cockpit(this, `Cockpit-${name}`, { name, config, state, headers, alarms, dashboardDir }),
      ]),
    );
    // CloudFormation refuses a template without resources; this one is free and does nothing.
    if (this.cockpits.size === 0) new CfnWaitConditionHandle(this, 'NoCockpits');
    for (const [name, cockpit] of this.cockpits) {
      new CfnOutput(this, `CockpitUrl-${name}`.replace(/[^A-Za-z0-9]/g, ''), {
        description: `Cockpit ${name}`,
        value: cockpit.url,
      });
    }
  }
}
