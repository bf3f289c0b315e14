// The run folder a harness writes, format `replay-run/1` (docs/contract.md §7): the head of `result.json` and the two
// trajectory events replay-push reads. Everything else in `result.json` is a runner field of the run row,
// validated by the row schema once the derived figures are merged in.
import * as z from './zod.ts';
import { amount, count, identity, instant, pathSafeIdentity } from './primitives.ts';
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
  host: z.optional(pathSafeIdentity),
  workspace: z.optional(z.string().check(z.startsWith('/', 'must be an absolute path'))),
  /** false: the source (an import) recorded no patch at all, so there is nothing to judge (docs/contract.md §7). */
  patchRecorded: z.optional(z.boolean()),
});
export type ResultFile = z.output<typeof resultFileSchema>;

export const modelCallEventSchema = z.object({
  type: z.literal('model-call'),
  step: count,
  startedAt: instant,
  endedAt: instant,
  promptTokens: z.optional(count),
  completionTokens: z.optional(count),
  promptSeconds: z.optional(amount),
  generationSeconds: z.optional(amount),
});
export type ModelCallEvent = z.output<typeof modelCallEventSchema>;

export const toolCallEventSchema = z.object({
  type: z.literal('tool-call'),
  step: count,
  tool: z.string(),
  command: z.optional(z.string()),
  path: z.optional(z.string()),
  startedAt: instant,
  endedAt: instant,
  exitCode: z.optional(z.int()),
  output: z.optional(z.string()),
});
export type ToolCallEvent = z.output<typeof toolCallEventSchema>;

export type TrajectoryEvent = ModelCallEvent | ToolCallEvent;
/** Event types replay-push reads; any other `type` is ignored (and invisible as a "preceding event"). */
export const trajectoryEventSchemas = { 'model-call': modelCallEventSchema, 'tool-call': toolCallEventSchema } as const;
