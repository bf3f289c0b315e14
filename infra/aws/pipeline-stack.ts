// Everything that can be replaced without losing data: the functions, the ingest endpoint, the schedule,
// the cockpits and the alarms. It reads the stateful stack only through the typed `PipelineState`.
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ReplayConfig } from './deployment-config.ts';
import type { PipelineState } from './stateful-stack.ts';
import { Alarms } from './constructs/alarms.ts';
import { Cockpit } from './constructs/cockpit.ts';
import { Ingest, INGEST_ROUTE } from './constructs/ingest.ts';
import { Judge } from './constructs/judge.ts';
import { Land } from './constructs/land.ts';
import { Schedule } from './constructs/schedule.ts';

export interface PipelineStackProps extends StackProps {
  config: ReplayConfig;
  state: PipelineState;
  dashboardDir: string;
}

export class PipelineStack extends Stack {
  readonly alarms: Alarms;
  readonly ingest: Ingest;
  readonly land: Land;
  readonly judge: Judge;
  readonly schedule: Schedule;
  readonly cockpits: Map<string, Cockpit>;

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, props);
    const { config, state } = props;
    this.alarms = new Alarms(this, 'Alarms', { email: config.alarms.email });
    this.ingest = new Ingest(this, 'IngestStage', { config, state, alarms: this.alarms });
    this.land = new Land(this, 'LandStage', { state, alarms: this.alarms });
    this.judge = new Judge(this, 'JudgeStage', { config, state, alarms: this.alarms });
    this.schedule = new Schedule(this, 'ScheduleStage', { config, state, alarms: this.alarms });
    this.cockpits = new Map(
      Object.keys(config.cockpits).map((name) => [
        name,
        new Cockpit(this, `Cockpit-${name}`, { name, config, state, dashboardDir: props.dashboardDir }),
      ]),
    );

    new CfnOutput(this, 'IngestUrl', {
      description: `Runner hosts POST to this base URL + ${INGEST_ROUTE}`,
      value: this.ingest.endpoint.stage.url,
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn });
    for (const [name, cockpit] of this.cockpits) {
      new CfnOutput(this, `CockpitUrl-${name}`.replace(/[^A-Za-z0-9]/g, ''), {
        description: `Cockpit ${name}`,
        value: `https://${cockpit.distribution.distributionDomainName}/`,
      });
    }
  }
}
