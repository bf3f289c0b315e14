// A local stand-in for the Anthropic Messages API (POST /v1/messages), for tests and the demo. It speaks the
// real wire format, so the real SDK talks to it unchanged, and answers through a callback.
//
//   const judge = await startAnthropicStandIn({ answer: (request) => '{"verdict":"resolved",…}' });
//   // ANTHROPIC_BASE_URL=judge.url, any ANTHROPIC_API_KEY (or exactly `apiKey` when one is given)
//   judge.requests   // every request received, in order
//   await judge.stop();
//
// `answer(request)` returns the answer text (a 200 Messages response), or `{ status, message? }` for an API
// error of that status (401 → authentication_error, 429 → rate_limit_error, 529 → overloaded_error, …). It
// may be async, e.g. to hold a call in flight. `request.userText` is the user message's text, which the
// caller can read to recognise the run being judged. Usage figures are an estimate (see estimateTokens):
// this stand-in has no tokenizer.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { readBody } from './read-body.ts';

export interface MessagesRequest {
  /** The JSON body as received. */
  body: Record<string, unknown>;
  model: string;
  system: string;
  userText: string;
  /** The credential the client sent (x-api-key, or a bearer token). */
  apiKey: string | null;
}

export type StandInAnswer = string | { status: number; message?: string };

export interface AnthropicStandInOptions {
  answer: (request: MessagesRequest) => StandInAnswer | Promise<StandInAnswer>;
  /** When set, any other key gets 401, as the real API does. */
  apiKey?: string;
  port?: number;
}

export interface AnthropicStandIn {
  url: string;
  requests: MessagesRequest[];
  stop(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/**
 * A token estimate without a tokenizer: a word piece of up to eight letters, up to three digits or up to two
 * punctuation characters (each with its leading space), or a run of whitespace, counts as one token. On this
 * repository's TypeScript and on diffs of it, that lands 5–14 % above the legacy Claude tokenizer
 * (@anthropic-ai/tokenizer 0.0.4); current models' tokenizers differ, so treat it as an estimate.
 */
export function estimateTokens(text: string): number {
  return text.match(/ ?[A-Za-z]{1,8}| ?\d{1,3}|\s+| ?[^\sA-Za-z\d]{1,2}/g)?.length ?? 0;
}

export async function startAnthropicStandIn(options: AnthropicStandInOptions): Promise<AnthropicStandIn> {
  const requests: MessagesRequest[] = [];
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendError(res, 500, `stand-in failure: ${(error as Error).message}`));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/v1/messages') return sendError(res, 404, `No route ${req.method} ${req.url}.`);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      return sendError(res, 400, 'The body is not JSON.');
    }
    if (typeof body.model !== 'string' || typeof body.max_tokens !== 'number' || !Array.isArray(body.messages)) {
      return sendError(res, 400, 'model, max_tokens and messages are required.');
    }
    const apiKey = header(req, 'x-api-key') ?? header(req, 'authorization')?.replace(/^Bearer /, '') ?? null;
    const request: MessagesRequest = { body, model: body.model, system: textOf(body.system), userText: userTextOf(body.messages), apiKey };
    requests.push(request);
    if (options.apiKey !== undefined && apiKey !== options.apiKey) return sendError(res, 401, 'invalid x-api-key');

    const answer = await options.answer(request);
    if (typeof answer !== 'string') return sendError(res, answer.status, answer.message ?? `stand-in error ${answer.status}`);
    send(res, 200, {
      id: `msg_${randomUUID().replaceAll('-', '')}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text: answer }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: estimateTokens(request.system) + estimateTokens(request.userText), output_tokens: estimateTokens(answer) },
    });
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function sendError(res: ServerResponse, status: number, message: string): void {
  send(res, status, { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomUUID().replaceAll('-', '')}` });
  res.end(JSON.stringify(body));
}

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
};

/** A string, or an array of content blocks whose text blocks are joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: { type?: unknown; text?: unknown }) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
}

function userTextOf(messages: unknown[]): string {
  return messages
    .filter((m): m is { role: string; content: unknown } => typeof m === 'object' && m !== null && (m as { role?: unknown }).role === 'user')
    .map((m) => textOf(m.content))
    .join('\n');
}
