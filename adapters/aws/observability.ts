// One instrumentation style for every function: a Powertools logger and Powertools metrics (EMF), created
// once per cold start by the function's default wiring and passed to its handler factory. Local mode
// passes its own: a quieter logger and metrics that are recorded but never published (there is no
// CloudWatch to read them).
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, type ServiceName } from '#core/operations.ts';

export interface Instrumentation {
  logger: Logger;
  metrics: Metrics;
}

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

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
    logger: new Logger({ serviceName, logLevel: options.logLevel }),
    metrics: options.publishMetrics === false ? new UnpublishedMetrics(metricsOptions) : new Metrics(metricsOptions),
  };
}

/** Publishes what this invocation recorded; an invocation that recorded nothing publishes nothing (and warns about nothing). */
export function flushMetrics(metrics: Metrics): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}
