import type { ReplayConfig } from '../deployment-config.ts';
import type { PipelineState } from '../stateful-stack.ts';
import type { Alarms } from './alarms.ts';

/** What every pipeline stage is built from: the configuration, the stateful resources, the alarm topic. */
export interface StageProps {
  config: ReplayConfig;
  state: PipelineState;
  alarms: Alarms;
}
