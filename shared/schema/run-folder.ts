// The run folder a harness writes, format `replay-run/1` (docs/contract.md §7): the head of `result.json` and the two
// trajectory events replay-push reads. Everything else in `result.json` is a runner field of the run row,
// validated by the row schema once the derived figures are merged in.
import * as z from 'zod';
import { identity, instant, pathSafeIdentity } from './primitives.ts';
import { outcome } from './run.ts';

export const RUN_FOLDER_FORMAT = 'replay-run/1';

export const resultFileSchema = z.looseObject({
  format: z.literal(RUN_FOLDER_FORMAT),
  model: identity,
  taskId: pathSafeIdentity,
  harnessVersion: pathSafeIdentity,
  startedAt: instant,
  finishedAt: instant,
  outcome,
  host: pathSafeIdentity.optional(),
  workspace: z.string().startsWith('/', 'must be an absolute path').optional(),
});
export type ResultFile = z.output<typeof resultFileSchema>;

const count = z.number().int().nonnegative();
const seconds = z.number().nonnegative().finite();

export const modelCallEventSchema = z.object({
  type: z.literal('model-call'),
  step: count,
  startedAt: instant,
  endedAt: instant,
  promptTokens: count.optional(),
  completionTokens: count.optional(),
  promptSeconds: seconds.optional(),
  generationSeconds: seconds.optional(),
});
export type ModelCallEvent = z.output<typeof modelCallEventSchema>;

export const toolCallEventSchema = z.object({
  type: z.literal('tool-call'),
  step: count,
  tool: z.string(),
  command: z.string().optional(),
  path: z.string().optional(),
  startedAt: instant,
  endedAt: instant,
  exitCode: z.number().int().optional(),
  output: z.string().optional(),
});
export type ToolCallEvent = z.output<typeof toolCallEventSchema>;

export type TrajectoryEvent = ModelCallEvent | ToolCallEvent;
/** Event types replay-push reads; any other `type` is ignored (and invisible as a "preceding event"). */
export const trajectoryEventSchemas = { 'model-call': modelCallEventSchema, 'tool-call': toolCallEventSchema } as const;
