// Local mode calls each handler as the Lambda runtime does, with a context of its own per invocation, so its
// log lines carry what a deployed function's carry (function name, request id, cold start) beside their
// correlation id.
import { randomUUID } from 'node:crypto';
import { totalmem } from 'node:os';
import type { Context } from 'aws-lambda';
import type { LambdaHandler } from '#adapters/aws/observability.ts';
import type { ServiceName } from '#core/operations.ts';

/** `handler` as local mode calls it: every call one invocation of the local function `replay-local-{service}`. */
export function invokedLocally<E, R>(service: ServiceName, handler: LambdaHandler<E, R>): (event: E) => Promise<R> {
  const functionName = `replay-local-${service}`;
  return (event) => handler(event, localContext(functionName));
}

/**
 * The context of one invocation of a local function, which shares the machine's memory and has no deadline
 * unless `millisecondsLeft` gives one (tests of a handler that watches its time).
 */
export function localContext(functionName: string, millisecondsLeft = () => Number.POSITIVE_INFINITY): Context {
  const unused = () => {
    throw new Error('Handlers answer with their promise, never through the context.');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(Math.floor(totalmem() / 2 ** 20)),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: millisecondsLeft,
    done: unused,
    fail: unused,
    succeed: unused,
  };
}
