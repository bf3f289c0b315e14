// An ingest endpoint for replay-push tests that records every request it gets (headers and raw body) and answers
// what the test scripts; by default 202 "verified", as ingest answers a good delivery.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: Record<string, unknown>;
}

export interface RecordingEndpoint {
  /** The ingest URL, http://127.0.0.1:{port}/hooks/S/ingest. */
  endpoint: string;
  /** http://127.0.0.1:{port}, for other paths (a redirect's target). */
  origin: string;
  requests: RecordedRequest[];
  /** Answers the next request by path; unscripted requests get 202 "verified". */
  answer: (request: RecordedRequest) => ScriptedAnswer | undefined;
  stop(): Promise<void>;
}

export async function startRecordingEndpoint(): Promise<RecordingEndpoint> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      const scripted = recording.answer(recorded) ?? {
        status: 202,
        body: { signature: 'verified', status: 'queued', ignored: [] },
      };
      response
        .writeHead(scripted.status, { 'content-type': 'application/json', ...scripted.headers })
        .end(JSON.stringify(scripted.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const recording: RecordingEndpoint = {
    endpoint: `${origin}/hooks/S/ingest`,
    origin,
    requests,
    answer: () => undefined,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return recording;
}
