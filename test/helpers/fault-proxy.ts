// An HTTP proxy in front of one emulator, for fault tests: each request is passed on, answered by the test's
// rule (a service error as AWS sends it), or left hanging, and every request is recorded with the status it
// got. The SDK clients reach it as they reach the emulator, signatures and all.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  url: string;
  /** `x-amz-target` (DynamoDB, SQS): the operation called. */
  target: string | null;
  /** The SDK's `amz-sdk-request` header: which attempt of how many. */
  attempt: string | null;
  headers: IncomingMessage['headers'];
  /** The status answered; null while it hangs. */
  status: number | null;
}

export type ProxyAnswer = 'pass' | 'hang' | { status: number; body: string; contentType: string };

export interface FaultProxy {
  url: string;
  requests: ProxiedRequest[];
  stop(): Promise<void>;
}

export async function startFaultProxy(
  upstream: string,
  rule: (request: ProxiedRequest) => ProxyAnswer,
): Promise<FaultProxy> {
  const target = new URL(upstream);
  const requests: ProxiedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const recorded: ProxiedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      target: (req.headers['x-amz-target'] as string | undefined) ?? null,
      attempt: (req.headers['amz-sdk-request'] as string | undefined) ?? null,
      headers: req.headers,
      status: null,
    };
    requests.push(recorded);
    const answer = rule(recorded);
    if (answer === 'hang') {
      req.resume();
      hanging.add(res);
      return;
    }
    if (answer !== 'pass') {
      req.resume();
      recorded.status = answer.status;
      res.writeHead(answer.status, { 'content-type': answer.contentType });
      res.end(answer.body);
      return;
    }
    const forwarded = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (upstreamRes) => {
        recorded.status = upstreamRes.statusCode ?? 0;
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async stop() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A DynamoDB error answer as the service sends it on the JSON protocol. */
export const dynamoError = (type: string, message: string, status = 400): ProxyAnswer => ({
  status,
  contentType: 'application/x-amz-json-1.0',
  body: JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message }),
});
