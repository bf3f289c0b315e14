// One instrumentation style for every function: Powertools logger, metrics and tracer, created once per
// cold start. The service name comes from POWERTOOLS_SERVICE_NAME, set per function by the stack.
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';

export function observability(serviceName: string) {
  return {
    logger: new Logger({ serviceName }),
    metrics: new Metrics({ serviceName, namespace: 'ReplayBench' }),
    tracer: new Tracer({ serviceName }),
  };
}

/** Publishes what this invocation recorded; an invocation that recorded nothing publishes nothing (and warns about nothing). */
export function flushMetrics(metrics: Metrics): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}
