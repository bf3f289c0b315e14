// SQS → landing. Each record carries a delivery, or a claim check for an inbox entry; the rules live in
// core/landing and `lambda.ts` wires AWS. A body that is neither is dropped with a warning (nothing to land, and
// retrying it cannot help); a delivery that does not parse, like a landing that throws, fails only its own
// record, and after the queue's retries waits in the dead-letter queue: an accepted delivery is never dropped.
import type { SQSRecord } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { landEntry, landInboxEntry, type LandingDeps } from '#core/landing/land.ts';
import { landingMessageSchema } from '#schema/messages.ts';
import { METRICS } from '#core/operations.ts';
import { correlate, type Instrumentation } from '#adapters/aws/observability.ts';
import { parseBody, sqsBatchHandler, type SqsBatchHandler } from '#adapters/aws/sqs-batch.ts';

export function createLanderHandler(coreDeps: LandingDeps, instrumentation: Instrumentation): SqsBatchHandler {
  const { logger, metrics } = instrumentation;
  const deps: LandingDeps = {
    ...coreDeps,
    keptForeign: (foreign) => {
      logger.warn('kept a run of a host that does not own it apart, as a foreign attempt', { ...foreign });
      metrics.addMetric(METRICS.foreignAttempt, MetricUnit.Count, 1);
    },
    collided: (collision) => {
      logger.warn('kept a run apart: its id is another run', { ...collision });
      metrics.addMetric(METRICS.runIdCollision, MetricUnit.Count, 1);
    },
    identified: correlate,
  };
  return sqsBatchHandler(instrumentation, async (record: SQSRecord) => {
    const body = parseBody(record);
    const message = landingMessageSchema.safeParse(body);
    if (!message.success && carriesEntry(body))
      throw new Error(`The delivery in landing message ${record.messageId} does not parse: ${describe(message.error)}`);
    if (!message.success) {
      logger.warn('dropped a malformed landing message', {
        messageId: record.messageId,
        reason: message.error.issues[0]?.message,
      });
      metrics.addMetric(METRICS.landingMessageDropped, MetricUnit.Count, 1);
      return;
    }
    const { space, entry, inboxKey, deliveryId } = message.data;
    correlate({ deliveryId: deliveryId ?? entry?.deliveryId });
    const outcome = entry ? await landEntry(deps, entry) : await landInboxEntry(deps, inboxKey!);
    logger.info('landed', { space, ...(entry ? {} : { inboxKey }), outcome });
    metrics.addMetric(METRICS.landed, MetricUnit.Count, 1);
  });
}

const carriesEntry = (body: unknown) => typeof body === 'object' && body !== null && 'entry' in body;

/** Where and what, never the value: a delivery's text stays out of the logs. */
const describe = (error: { issues: { path: PropertyKey[]; message: string }[] }) =>
  error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`)
    .join('; ');
