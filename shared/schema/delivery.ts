// The three delivery kinds a runner host may POST (docs/contract.md §3). Parsing strips unknown and runner-forbidden
// keys and reports them, so the 202 can name what was ignored.
import * as z from './zod.ts';
import { issueRecordSchema } from './issue.ts';
import { pathSafeIdentity, instant, identity, longText, patchText } from './primitives.ts';
import { hiddenTestResultSchema, runnerRowSchema } from './run.ts';

export const MAX_DELIVERY_BYTES = 1024 * 1024;

export const runDeliverySchema = z.object({
  kind: z.literal('run'),
  host: pathSafeIdentity,
  id: identity.check(z.maxLength(700)),
  row: runnerRowSchema,
  /** null: the source recorded no patch (an import), which is not judged; '' is a run that changed nothing. */
  patch: z._default(z.nullable(patchText), ''),
  patchTruncated: z._default(z.boolean(), false),
  summary: z._default(longText(MAX_DELIVERY_BYTES), ''),
});

export const issueDeliverySchema = z.object({
  kind: z.literal('issue'),
  host: pathSafeIdentity,
  /** When the sender wrote the delivery to its outbox, set once: of two records for a task, the later one stands. */
  sentAt: instant,
  issue: issueRecordSchema,
});

export const hiddenTestDeliverySchema = z.object({
  kind: z.literal('hidden-test'),
  host: pathSafeIdentity,
  id: identity.check(z.maxLength(700)),
  finishedAt: instant,
  hiddenTestResult: hiddenTestResultSchema,
});

export const deliverySchema = z.discriminatedUnion('kind', [
  runDeliverySchema,
  issueDeliverySchema,
  hiddenTestDeliverySchema,
]);
export type Delivery = z.output<typeof deliverySchema>;
export type RunDelivery = z.output<typeof runDeliverySchema>;
export type IssueDelivery = z.output<typeof issueDeliverySchema>;
export type HiddenTestDelivery = z.output<typeof hiddenTestDeliverySchema>;

export const DELIVERY_KINDS = ['run', 'issue', 'hidden-test'] as const;

/**
 * `replay-push check` (docs/contract.md §3): a signed probe that proves the host's key and listing are in
 * place, answered 200 and never stored, so pairing a host leaves no row behind.
 */
export const checkDeliverySchema = z.strictObject({ kind: z.literal('check'), host: pathSafeIdentity });
export const CHECK_KIND = 'check';

/** Keys present in the input that the schema for its kind does not know (they are dropped, not stored). */
export function ignoredKeys(input: Record<string, unknown>): string[] {
  const kind = input.kind;
  const schema = kind === 'run' ? runDeliverySchema : kind === 'issue' ? issueDeliverySchema : hiddenTestDeliverySchema;
  const ignored = unknownKeys(input, schema.shape, '');
  const nested =
    kind === 'run' ? ['row', runnerRowSchema.shape] : kind === 'issue' ? ['issue', issueRecordSchema.shape] : null;
  if (nested) {
    const [name, shape] = nested as [string, Record<string, unknown>];
    const inner = input[name];
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
      ignored.push(...unknownKeys(inner as Record<string, unknown>, shape, `${name}.`));
    }
  }
  return ignored;
}

function unknownKeys(input: Record<string, unknown>, shape: Record<string, unknown>, prefix: string): string[] {
  return Object.keys(input)
    .filter((k) => !Object.hasOwn(shape, k))
    .map((k) => prefix + k);
}
