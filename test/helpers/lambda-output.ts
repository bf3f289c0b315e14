// What a handler prints while a test invokes it, read the way CloudWatch reads it: Powertools writes one
// JSON object per line to stdout/stderr, log lines and EMF metric blobs alike. Tests assert on the printed
// EMF (namespace, `service` dimension, names, values) rather than on calls into a metrics object, so a metric
// that is recorded but never flushed, or flushed under the wrong namespace, fails the test.
import { METRICS_NAMESPACE, type MetricName } from '#core/operations.ts';

export interface LambdaOutput {
  /** Every line printed, parsed; a line that is not JSON is kept as `{ text }`. */
  lines: Record<string, unknown>[];
  /** Everything printed, verbatim, for "never appears" assertions. */
  text: string;
}

export interface PublishedMetric {
  namespace: string;
  service: unknown;
  name: string;
  unit: string;
  values: number[];
}

/** Runs `invoke` with stdout and stderr captured; nothing it prints reaches the terminal. */
export async function capturingOutput<T>(invoke: () => Promise<T>): Promise<{ result: T; output: LambdaOutput }> {
  const chunks: string[] = [];
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const callback = rest.find((arg): arg is () => void => typeof arg === 'function');
      callback?.();
      return true;
    }) as typeof stream.write;
  }
  try {
    const result = await invoke();
    return { result, output: parseOutput(chunks.join('')) };
  } finally {
    streams.forEach((stream, i) => (stream.write = originals[i]!));
  }
}

function parseOutput(text: string): LambdaOutput {
  const lines = text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return { text: line };
      }
    });
  return { lines, text };
}

interface EmfBlob {
  _aws: {
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [field: string]: unknown;
}

/** The metrics of every EMF blob printed, one entry per metric directive. */
export function publishedMetrics(output: LambdaOutput): PublishedMetric[] {
  return output.lines
    .filter((line): line is EmfBlob => typeof line._aws === 'object' && line._aws !== null)
    .flatMap((blob) =>
      blob._aws.CloudWatchMetrics.flatMap((directive) =>
        directive.Metrics.map((metric) => ({
          namespace: directive.Namespace,
          service: directive.Dimensions.flat().includes('service') ? blob.service : undefined,
          name: metric.Name,
          unit: metric.Unit,
          values: ([] as unknown[]).concat(blob[metric.Name]).map(Number),
        })),
      ),
    );
}

/** The values published for one metric of one service under the project's namespace, in order. */
export function metricValues(output: LambdaOutput, service: string, name: MetricName): number[] {
  return publishedMetrics(output)
    .filter((metric) => metric.namespace === METRICS_NAMESPACE && metric.service === service && metric.name === name)
    .flatMap((metric) => metric.values);
}

/** Log lines (not EMF blobs) whose message is `message`. */
export function logLines(output: LambdaOutput, message: string): Record<string, unknown>[] {
  return output.lines.filter((line) => line.message === message && !('_aws' in line));
}
