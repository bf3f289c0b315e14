// A local stand-in for the Anthropic Messages API (POST /v1/messages) that speaks the real wire format, so the
// real SDK talks to it unchanged (ANTHROPIC_BASE_URL=standIn.url). `answer(request)` returns the answer text,
// or `{ status, message? }` for an API error of that status; it may be async to hold a call in flight, and
// `request.userText` lets it recognise the run. `requests` records every request. It estimates usage (no
// tokenizer), simulates prompt caching up to the `cache_control` block, answers 404 for a model outside
// `models`, and checks a structured-output schema as the API does, while the answer stays the callback's.
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
  /** When set, the only models that exist; any other gets 404 not_found_error. */
  models?: string[];
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
  const cached = new Set<string>();
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendError(res, 500, `stand-in failure: ${(error as Error).message}`));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/v1/messages')
      return sendError(res, 404, `No route ${req.method} ${req.url}.`);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      return sendError(res, 400, 'The body is not JSON.');
    }
    if (typeof body.model !== 'string' || typeof body.max_tokens !== 'number' || !Array.isArray(body.messages)) {
      return sendError(res, 400, 'model, max_tokens and messages are required.');
    }
    const formatProblem = outputFormatProblem(body.output_config);
    if (formatProblem) return sendError(res, 400, formatProblem);
    const apiKey = header(req, 'x-api-key') ?? header(req, 'authorization')?.replace(/^Bearer /, '') ?? null;
    const request: MessagesRequest = {
      body,
      model: body.model,
      system: textOf(body.system),
      userText: userTextOf(body.messages),
      apiKey,
    };
    requests.push(request);
    if (options.apiKey !== undefined && apiKey !== options.apiKey) return sendError(res, 401, 'invalid x-api-key');
    if (options.models && !options.models.includes(body.model)) return sendError(res, 404, `model: ${body.model}`);

    const answer = await options.answer(request);
    if (typeof answer !== 'string')
      return sendError(res, answer.status, answer.message ?? `stand-in error ${answer.status}`);
    send(res, 200, {
      id: `msg_${randomUUID().replaceAll('-', '')}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text: answer }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { ...promptUsage(body), output_tokens: estimateTokens(answer) },
    });
  }

  /** Input tokens split into cache writes, cache reads and the rest, for the prompt's cache breakpoints. */
  function promptUsage(body: Record<string, unknown>) {
    const blocks = [
      ...contentBlocks(body.system),
      ...(body.messages as { content?: unknown }[]).flatMap((m) => contentBlocks(m?.content)),
    ];
    let prefix = `${body.model as string}\n`;
    const breakpoints: string[] = [];
    for (const block of blocks) {
      prefix += block.text;
      if (block.cached) breakpoints.push(prefix);
    }
    const total = blocks.reduce((sum, b) => sum + estimateTokens(b.text), 0);
    const tokensOf = (p: string) => estimateTokens(p.slice(p.indexOf('\n') + 1));
    const longestSeen = [...breakpoints].reverse().find((p) => cached.has(p));
    const read = longestSeen ? tokensOf(longestSeen) : 0;
    const last = breakpoints.at(-1);
    const written = last && last !== longestSeen ? tokensOf(last) - read : 0;
    for (const p of breakpoints) cached.add(p);
    return {
      input_tokens: total - read - written,
      cache_creation_input_tokens: written,
      cache_read_input_tokens: read,
    };
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

/** Keywords the API's structured outputs do not take (the SDK moves them into descriptions). */
const UNSUPPORTED_SCHEMA_KEYWORDS = [
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minProperties',
  'maxProperties',
];

/** Why the API would refuse this `output_config`, or null. */
function outputFormatProblem(config: unknown): string | null {
  const format = (config as { format?: unknown } | undefined)?.format as { type?: unknown; schema?: unknown } | null;
  if (format === undefined || format === null) return null;
  if (format.type !== 'json_schema' || typeof format.schema !== 'object' || format.schema === null)
    return 'output_config.format: type must be "json_schema", with a schema object.';
  return schemaProblem(format.schema as Record<string, unknown>, 'output_config.format.schema');
}

function schemaProblem(node: Record<string, unknown>, path: string): string | null {
  const unsupported = UNSUPPORTED_SCHEMA_KEYWORDS.find((key) => key in node);
  if (unsupported) return `${path}: property '${unsupported}' is not supported.`;
  if (node.type !== 'object') return null;
  if (node.additionalProperties !== false)
    return `${path}: For 'object' type, 'additionalProperties' must be explicitly set to false.`;
  for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, Record<string, unknown>>)) {
    const problem = schemaProblem(property, `${path}.properties.${name}`);
    if (problem) return problem;
  }
  return null;
}

function sendError(res: ServerResponse, status: number, message: string): void {
  send(res, status, { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'request-id': `req_${randomUUID().replaceAll('-', '')}`,
  });
  res.end(JSON.stringify(body));
}

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
};

/** Text blocks with whether each carries a cache breakpoint; a plain string is one unmarked block. */
function contentBlocks(content: unknown): { text: string; cached: boolean }[] {
  if (typeof content === 'string') return [{ text: content, cached: false }];
  if (!Array.isArray(content)) return [];
  return content
    .filter((b: { type?: unknown; text?: unknown }) => b?.type === 'text' && typeof b.text === 'string')
    .map((b: { text: string; cache_control?: unknown }) => ({
      text: b.text,
      cached: b.cache_control !== undefined && b.cache_control !== null,
    }));
}

/** A string, or an array of content blocks whose text blocks are joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: unknown; text?: unknown }) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .join('');
}

function userTextOf(messages: unknown[]): string {
  return messages
    .filter(
      (m): m is { role: string; content: unknown } =>
        typeof m === 'object' && m !== null && (m as { role?: unknown }).role === 'user',
    )
    .map((m) => textOf(m.content))
    .join('\n');
}
