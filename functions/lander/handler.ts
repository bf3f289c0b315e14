// SQS → landing. Each record is a claim check for an inbox entry; the rules live in core/landing and
// `lambda.ts` wires AWS. A body that is not a claim check is dropped with a warning (nothing to land, and
// retrying it cannot help); a landing that throws fails only its own record.
import type { SQSRecord } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { landInboxEntry, type LandingDeps } from '#core/landing/land.ts';
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
    const message = landingMessageSchema.safeParse(parseBody(record));
    if (!message.success) {
      logger.warn('dropped a malformed landing message', {
        messageId: record.messageId,
        reason: message.error.issues[0]?.message,
      });
      metrics.addMetric(METRICS.landingMessageDropped, MetricUnit.Count, 1);
      return;
    }
    correlate({ deliveryId: message.data.deliveryId });
    const outcome = await landInboxEntry(deps, message.data.inboxKey);
    logger.info('landed', { space: message.data.space, inboxKey: message.data.inboxKey, outcome });
    metrics.addMetric(METRICS.landed, MetricUnit.Count, 1);
  });
}
