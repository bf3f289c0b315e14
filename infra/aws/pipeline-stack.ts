// Everything that can be replaced without losing data: the functions, the ingest endpoint, the schedule,
// the alarms and what the cockpits share (their cockpit-stack.ts stacks hold the cockpits themselves). It
// reads the stateful stack only through the typed `PipelineState`.
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ReplayConfig } from './deployment-config.ts';
import type { PipelineState } from './stateful-stack.ts';
import { Alarms } from './constructs/alarms.ts';
import { CockpitHeaders } from './constructs/cockpit-headers.ts';
import { Ingest, INGEST_ROUTE } from './constructs/ingest.ts';
import { Judge } from './constructs/judge.ts';
import { Land } from './constructs/land.ts';
import { Schedule } from './constructs/schedule.ts';

export interface PipelineStackProps extends StackProps {
  config: ReplayConfig;
  state: PipelineState;
  /** The account-wide name of the cockpits' shared response headers policy of a kind. */
  cockpitHeadersName: (kind: string) => string;
}

export class PipelineStack extends Stack {
  readonly alarms: Alarms;
  readonly ingest: Ingest;
  readonly land: Land;
  readonly judge: Judge;
  readonly schedule: Schedule;
  readonly cockpitHeaders: CockpitHeaders;

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, props);
    const { config, state } = props;
    this.alarms = new Alarms(this, 'Alarms', { email: config.alarms.email });
    this.ingest = new Ingest(this, 'IngestStage', { config, state, alarms: this.alarms });
    this.land = new Land(this, 'LandStage', { state, alarms: this.alarms });
    this.judge = new Judge(this, 'JudgeStage', { config, state, alarms: this.alarms });
    this.schedule = new Schedule(this, 'ScheduleStage', { config, state, alarms: this.alarms });
    this.cockpitHeaders = new CockpitHeaders(this, 'CockpitHeaders', props.cockpitHeadersName);

    // One output for every space (CloudFormation allows 200 outputs): `npm run deploy` fills in each space.
    new CfnOutput(this, 'IngestUrlTemplate', {
      description: 'Runner hosts POST to this URL with {space} replaced by the space name',
      value: `${this.ingest.baseUrl}${INGEST_ROUTE}`,
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn });
  }
}
