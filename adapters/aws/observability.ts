// One instrumentation style for every function: a Powertools logger and Powertools metrics (EMF), created
// once per cold start by the function's default wiring and passed to its handler factory, and one wrapper,
// `instrumented`, that every handler is. Local mode passes its own: a quieter logger and metrics that are
// recorded but never published (there is no CloudWatch to read them).
//
// An operator follows one delivery from ingest to verdict by its correlation id (docs/deploy.md, "Following a
// delivery"): every log line carries the invocation's Lambda context (Powertools' addContext) and the
// `correlation_id` and `run_id` the handler named with `correlate` once it knew them. Those two live in an
// async-local scope per invocation, and per record of a batch, not on the shared logger: the records of a
// batch are handled at once, and so are the invocations local mode serves, so keys set on the logger would
// label a neighbour's lines.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'aws-lambda';
import { Logger } from '@aws-lambda-powertools/logger';
import type { LogItem } from '@aws-lambda-powertools/logger';
import type { LogItemExtraInput, LogItemMessage } from '@aws-lambda-powertools/logger/types';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, type ServiceName } from '#core/operations.ts';

export interface Instrumentation {
  logger: Logger;
  metrics: Metrics;
}

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/** A Lambda handler as the runtime calls it; tests may leave the context out. */
export type LambdaHandler<E, R> = (event: E, context?: Context) => Promise<R>;

/** What an invocation's log lines are about, as far as it is known yet. */
export interface Correlation {
  /** The delivery that caused the work: X-Replay-Delivery, else the body's SHA-256 (docs/contract.md §3). */
  deliveryId?: string;
  runId?: string;
}

const scopes = new AsyncLocalStorage<{ correlation_id?: string; run_id?: string }>();

/** A Powertools logger whose every line also carries the correlation keys of the scope it is written in. */
class CorrelatedLogger extends Logger {
  protected override createAndPopulateLogItem(
    logLevel: number,
    input: LogItemMessage,
    extraInput: LogItemExtraInput,
  ): LogItem {
    const keys = scopes.getStore();
    const keyed = !keys ? input : typeof input === 'string' ? { message: input, ...keys } : { ...keys, ...input };
    return super.createAndPopulateLogItem(logLevel, keyed, extraInput);
  }
}

/** Metrics that a process without CloudWatch records and drops at each flush. */
class UnpublishedMetrics extends Metrics {
  override publishStoredMetrics(): this {
    this.clearMetrics();
    return this;
  }
}

export function instrumentation(
  serviceName: ServiceName,
  options: { logLevel?: LogLevel; publishMetrics?: boolean } = {},
): Instrumentation {
  const metricsOptions = { serviceName, namespace: METRICS_NAMESPACE };
  return {
    logger: new CorrelatedLogger({ serviceName, logLevel: options.logLevel }),
    metrics: options.publishMetrics === false ? new UnpublishedMetrics(metricsOptions) : new Metrics(metricsOptions),
  };
}

/**
 * Every handler, wrapped: the Lambda context on its log lines, a correlation scope of its own, and what it
 * recorded published when it ends, however it ends (an invocation that recorded nothing publishes nothing).
 * In AWS a function's environment runs one invocation at a time, so the context set on the logger is this
 * invocation's; local mode's overlapping invocations of one function share its last context.
 */
export function instrumented<E, R>(
  { logger, metrics }: Instrumentation,
  handle: (event: E, context?: Context) => Promise<R>,
): LambdaHandler<E, R> {
  return (event, context) =>
    scopes.run({}, async () => {
      if (context) logger.addContext(context);
      try {
        return await handle(event, context);
      } finally {
        if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
      }
    });
}

/**
 * Names what the lines written from here on in this scope are about: `correlation_id` is the delivery id, or the
 * run id while no delivery is known (a retry the sweeper queued); `run_id` joins it once known.
 */
export function correlate({ deliveryId, runId }: Correlation): void {
  const keys = scopes.getStore();
  if (!keys) return;
  if (deliveryId) keys.correlation_id = deliveryId;
  if (runId) {
    keys.run_id = runId;
    keys.correlation_id ??= runId;
  }
}

/** Runs `task` in a scope of its own that starts as a copy of this one: a batch record's ids stay its own. */
export function ownScope<T>(task: () => Promise<T>): Promise<T> {
  return scopes.run({ ...scopes.getStore() }, task);
}
