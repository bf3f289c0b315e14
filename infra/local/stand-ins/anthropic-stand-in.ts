// A local stand-in for the Anthropic Messages API (POST /v1/messages) that speaks the real wire format, so the
// real SDK talks to it unchanged (ANTHROPIC_BASE_URL=standIn.url). `answer(request)` returns the answer text,
// or `{ status, message? }` for an API error of that status; it may be async to hold a call in flight, and
// `request.userText` lets it recognise the run. `requests` records every request. It estimates usage (no
// tokenizer), simulates prompt caching up to the `cache_control` block, answers 404 for a model outside
// `models`, and checks a structured-output schema as the API does, while the answer stays the callback's.
// It speaks the Message Batches protocol too: POST /v1/messages/batches takes `{requests: [{custom_id, params}]}`,
// GET /v1/messages/batches/{id} answers the batch (`in_progress` while `holdBatches` holds it, then `ended` with
// its `results_url`), and GET of that URL answers one JSONL line per request, in no particular order: each
// request's answer from the same callback (an error status becomes an `errored` result, and
// `{ batchResult: 'expired' | 'canceled' }` that result). GET /v1/messages/batches lists the batches, newest first,
// in pages (`limit`, `after_id`; `has_more`, `first_id`, `last_id`). `loseNextBatchCreate` drops the connection of
// the next create, before or after the batch is made, as a lost answer does.
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

export type StandInAnswer =
  | string
  | { status: number; message?: string }
  /** Only in a batch: the request's result is `expired` or `canceled` rather than an answer. */
  | { batchResult: 'expired' | 'canceled' };

export interface AnthropicStandInOptions {
  answer: (request: MessagesRequest) => StandInAnswer | Promise<StandInAnswer>;
  /** When set, any other key gets 401, as the real API does. */
  apiKey?: string;
  /** When set, the only models that exist; any other gets 404 not_found_error. */
  models?: string[];
  port?: number;
  /** Batches stay `in_progress` until `endBatches()`; otherwise each has ended when it is first read. */
  holdBatches?: boolean;
  /** The clock a batch's `created_at` is read from (the caller's settable clock in tests); the real one by default. */
  now?: () => Date;
}

export interface AnthropicStandIn {
  url: string;
  requests: MessagesRequest[];
  /** The ids of the batches created, in order. */
  batches: string[];
  /** Ends every held batch: its results are worked out now, from the `answer` callback. */
  endBatches(): Promise<void>;
  /** The next batch create gets no answer (its connection drops), the batch made first or never made. */
  loseNextBatchCreate(when: 'after-creating' | 'before-creating'): void;
  stop(): Promise<void>;
}

interface StoredBatch {
  id: string;
  createdAt: string;
  requests: { customId: string; body: Record<string, unknown>; apiKey: string | null }[];
  /** The JSONL results, once the batch has ended. */
  results: string | null;
  endedAt: string | null;
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
  const batches = new Map<string, StoredBatch>();
  let losing: 'after-creating' | 'before-creating' | null = null;
  const now = options.now ?? (() => new Date());
  let baseUrl = '';
  const cached = new Set<string>();
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendError(res, 500, `stand-in failure: ${(error as Error).message}`));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const apiKey = header(req, 'x-api-key') ?? header(req, 'authorization')?.replace(/^Bearer /, '') ?? null;
    const batchPath = /^\/v1\/messages\/batches\/([A-Za-z0-9_]+)(\/results)?$/.exec(path);
    if (req.method === 'GET' && path === '/v1/messages/batches') {
      if (options.apiKey !== undefined && apiKey !== options.apiKey) return sendError(res, 401, 'invalid x-api-key');
      return send(res, 200, await batchList(new URL(req.url ?? '/', 'http://x').searchParams));
    }
    if (req.method === 'GET' && batchPath) {
      if (options.apiKey !== undefined && apiKey !== options.apiKey) return sendError(res, 401, 'invalid x-api-key');
      const batch = batches.get(batchPath[1]!);
      if (!batch) return sendError(res, 404, `No batch ${batchPath[1]}.`);
      if (!options.holdBatches && batch.results === null) await endBatch(batch);
      if (!batchPath[2]) return send(res, 200, batchObject(batch));
      if (batch.results === null) return sendError(res, 400, `Batch ${batch.id} is still in progress.`);
      res.writeHead(200, { 'content-type': 'application/binary' });
      return void res.end(batch.results);
    }
    if (req.method !== 'POST' || (path !== '/v1/messages' && path !== '/v1/messages/batches'))
      return sendError(res, 404, `No route ${req.method} ${req.url}.`);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      return sendError(res, 400, 'The body is not JSON.');
    }
    const refused = options.apiKey !== undefined && apiKey !== options.apiKey;
    if (path === '/v1/messages/batches') {
      if (refused) return sendError(res, 401, 'invalid x-api-key');
      const lose = losing;
      losing = null;
      if (lose === 'before-creating') return void res.destroy();
      return createBatch(res, body, apiKey, lose === 'after-creating');
    }

    const problem = paramsProblem(body);
    if (problem) return sendError(res, 400, problem);
    const request = recorded(body, apiKey);
    if (refused) return sendError(res, 401, 'invalid x-api-key');
    if (options.models && !options.models.includes(request.model))
      return sendError(res, 404, `model: ${request.model}`);
    const answer = await options.answer(request);
    if (typeof answer !== 'string') {
      if ('batchResult' in answer) return sendError(res, 500, 'stand-in: a batch result asked of a live call');
      return sendError(res, answer.status, answer.message ?? `stand-in error ${answer.status}`);
    }
    send(res, 200, message(body, answer));
  }

  function recorded(body: Record<string, unknown>, apiKey: string | null): MessagesRequest {
    const request: MessagesRequest = {
      body,
      model: body.model as string,
      system: textOf(body.system),
      userText: userTextOf(body.messages as unknown[]),
      apiKey,
    };
    requests.push(request);
    return request;
  }

  function message(body: Record<string, unknown>, answer: string) {
    return {
      id: `msg_${randomUUID().replaceAll('-', '')}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text: answer }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { ...promptUsage(body), output_tokens: estimateTokens(answer) },
    };
  }

  /** As the API does, the whole batch is refused when one request's parameters are invalid. */
  function createBatch(res: ServerResponse, body: Record<string, unknown>, apiKey: string | null, lost: boolean): void {
    const list = body.requests;
    if (!Array.isArray(list) || list.length === 0)
      return sendError(res, 400, 'requests: a non-empty list is required.');
    const ids = new Set<string>();
    for (const [i, item] of (list as { custom_id?: unknown; params?: unknown }[]).entries()) {
      const customId = item?.custom_id;
      if (typeof customId !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(customId))
        return sendError(res, 400, `requests.${i}.custom_id: 1 to 64 letters, digits, "_" or "-".`);
      if (ids.has(customId)) return sendError(res, 400, `requests.${i}.custom_id: duplicate ${customId}.`);
      ids.add(customId);
      const problem =
        typeof item.params === 'object' && item.params !== null
          ? paramsProblem(item.params as Record<string, unknown>)
          : 'params is required.';
      if (problem) return sendError(res, 400, `requests.${i}.params: ${problem}`);
    }
    const batch: StoredBatch = {
      id: `msgbatch_${randomUUID().replaceAll('-', '')}`,
      createdAt: now().toISOString(),
      requests: (list as { custom_id: string; params: Record<string, unknown> }[]).map((r) => ({
        customId: r.custom_id,
        body: r.params,
        apiKey,
      })),
      results: null,
      endedAt: null,
    };
    batches.set(batch.id, batch);
    if (lost) return void res.destroy();
    send(res, 200, batchObject(batch));
  }

  async function endBatch(batch: StoredBatch): Promise<void> {
    const lines: string[] = [];
    for (const { customId, body, apiKey } of batch.requests) {
      const request = recorded(body, apiKey);
      const answer =
        options.models && !options.models.includes(request.model)
          ? { status: 404, message: `model: ${request.model}` }
          : await options.answer(request);
      const result =
        typeof answer === 'string'
          ? { type: 'succeeded', message: message(body, answer) }
          : 'batchResult' in answer
            ? { type: answer.batchResult }
            : {
                type: 'errored',
                error: { type: 'error', error: errorBody(answer.status, answer.message ?? 'stand-in error') },
              };
      lines.push(JSON.stringify({ custom_id: customId, result }));
    }
    // Results come in no particular order: reversed, so a reader that relied on the order would show it.
    batch.results = `${lines.reverse().join('\n')}\n`;
    batch.endedAt = now().toISOString();
  }

  /** A page of the batches, newest first, after `after_id` when given; read, an unheld batch has ended. */
  async function batchList(query: URLSearchParams) {
    const newestFirst = [...batches.values()].reverse();
    const after = query.get('after_id');
    const start = after === null ? 0 : newestFirst.findIndex((b) => b.id === after) + 1;
    const page = newestFirst.slice(start, start + Number(query.get('limit') ?? 20));
    if (!options.holdBatches) for (const batch of page) if (batch.results === null) await endBatch(batch);
    return {
      data: page.map(batchObject),
      has_more: start + page.length < newestFirst.length,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
    };
  }

  function batchObject(batch: StoredBatch) {
    const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    if (batch.results === null) counts.processing = batch.requests.length;
    else
      for (const line of batch.results.trim().split('\n')) {
        const type = (JSON.parse(line) as { result: { type: keyof typeof counts } }).result.type;
        counts[type] += 1;
      }
    const ended = batch.results !== null;
    return {
      id: batch.id,
      type: 'message_batch',
      processing_status: ended ? 'ended' : 'in_progress',
      request_counts: counts,
      created_at: batch.createdAt,
      ended_at: batch.endedAt,
      expires_at: new Date(Date.parse(batch.createdAt) + 24 * 3600_000).toISOString(),
      archived_at: null,
      cancel_initiated_at: null,
      results_url: ended ? `${baseUrl}/v1/messages/batches/${batch.id}/results` : null,
    };
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
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: baseUrl,
    requests,
    get batches() {
      return [...batches.keys()];
    },
    loseNextBatchCreate(when) {
      losing = when;
    },
    endBatches: async () => {
      for (const batch of batches.values()) if (batch.results === null) await endBatch(batch);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Why the API would refuse these Messages parameters, or null. */
function paramsProblem(body: Record<string, unknown>): string | null {
  if (typeof body.model !== 'string' || typeof body.max_tokens !== 'number' || !Array.isArray(body.messages))
    return 'model, max_tokens and messages are required.';
  return outputFormatProblem(body.output_config);
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

const errorBody = (status: number, message: string) => ({ type: ERROR_TYPES[status] ?? 'api_error', message });

function sendError(res: ServerResponse, status: number, message: string): void {
  send(res, status, { type: 'error', error: errorBody(status, message) });
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
