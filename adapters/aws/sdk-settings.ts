// How every AWS SDK v3 client is built, in a function, in local mode and in the tests (docs/contract.md §8): the
// SDK's standard retry mode, explicit connection, answer and socket timeouts from core/operations.ts,
// and a deadline per call (the call's abort signal), so a service that hangs fails the call while the
// invocation can still answer or report its record. A deployed function passes an empty connection: the
// SDK then takes the region and the role's credentials from the Lambda environment and the service's own
// endpoint. Local mode and the tests pass the emulators' endpoints and credentials instead.
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { AwsCallTimeouts } from '#core/operations.ts';

export type AwsService = 'dynamodb' | 's3' | 'sqs' | 'secretsManager' | 'athena';

export interface AwsConnection {
  region?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Endpoints other than AWS's own (the local emulators). */
  endpoints?: Partial<Record<AwsService, string>>;
}

export function clientSettings(connection: AwsConnection, service: AwsService, timeouts: AwsCallTimeouts) {
  return {
    region: connection.region,
    credentials: connection.credentials,
    endpoint: connection.endpoints?.[service],
    retryMode: 'standard',
    requestHandler: new NodeHttpHandler({
      connectionTimeout: timeouts.connectMs,
      requestTimeout: timeouts.answerMs,
      throwOnRequestTimeout: true,
      socketTimeout: timeouts.socketIdleMs,
    }),
  };
}

/** A call that did not finish, retries included, within its deadline. */
export class AwsDeadlineError extends Error {
  override readonly name = 'AwsDeadlineError';
}

/** Runs one SDK call (and the reading of its answer) under the deadline of `timeouts`. */
export async function withinDeadline<T>(
  what: string,
  timeouts: AwsCallTimeouts,
  call: (options: { abortSignal: AbortSignal }) => Promise<T>,
): Promise<T> {
  const abortSignal = AbortSignal.timeout(timeouts.deadlineMs);
  try {
    return await call({ abortSignal });
  } catch (error) {
    if (!abortSignal.aborted) throw error;
    throw new AwsDeadlineError(`${what} did not finish within ${timeouts.deadlineMs} ms, retries included.`, {
      cause: error,
    });
  }
}

/** The HTTP status of an SDK error, when the service answered. */
export const statusOf = (error: unknown): number | undefined =>
  (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;

/** An SDK error's name: the service's error code (`ConditionalCheckFailedException`, `NoSuchKey`, …). */
export const errorNameOf = (error: unknown): string | undefined => (error as { name?: string } | null)?.name;
