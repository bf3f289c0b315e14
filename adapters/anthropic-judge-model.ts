// The judge model over the Anthropic Messages API: one tool-free call, no SDK retries (the judge's own
// schedule retries, and each attempt is exactly one request against the budget), failures mapped to codes
// whose messages never carry a key. The system prompt and the task's shared part of the user message carry
// cache breakpoints, so every run of one task after the first reads the reference fix from the provider's
// prompt cache; the usage it reports says how many tokens were written to and read from that cache. The
// answer is asked for as structured output of the request's JSON Schema (no tools), brought to the subset
// the API takes by the SDK's own transform. In batch mode the same request bodies go out as one Message Batch
// (`messages.batches`), and each result is read as a live answer is: a succeeded result's message as the
// answer, an errored one through the same error mapping, an expired or canceled one as a failure of its own.
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  NotFoundError,
  PermissionDeniedError,
} from '@anthropic-ai/sdk';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import { TIMINGS } from '#core/operations.ts';
import {
  BATCH_NOT_FOUND,
  JudgeModelError,
  type JudgeBatchRequest,
  type JudgeBatchResult,
  type JudgeModel,
  type JudgeModelAnswer,
  type JudgeModelRequest,
} from '#core/ports.ts';

export class AnthropicJudgeModel implements JudgeModel {
  private readonly client: Anthropic;
  private readonly timeoutMs: number;

  constructor(options: { apiKey: string; baseURL?: string; timeoutMs?: number }) {
    this.timeoutMs = options.timeoutMs ?? TIMINGS.modelCall * 1000;
    this.client = new Anthropic({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      maxRetries: 0,
      timeout: this.timeoutMs,
    });
  }

  async ask(request: JudgeModelRequest): Promise<JudgeModelAnswer> {
    let message: Anthropic.Message;
    try {
      message = await this.client.messages.create(paramsOf(request));
    } catch (error) {
      throw asJudgeModelError(error, request.model, this.timeoutMs);
    }
    return answerOf(message);
  }

  async submitBatch(requests: JudgeBatchRequest[]): Promise<string> {
    try {
      const batch = await this.client.messages.batches.create({
        requests: requests.map(({ customId, request }) => ({ custom_id: customId, params: paramsOf(request) })),
      });
      return batch.id;
    } catch (error) {
      throw asJudgeModelError(error, requests[0]?.request.model ?? '', this.timeoutMs);
    }
  }

  async batchResults(batchId: string): Promise<JudgeBatchResult[] | null> {
    const results: JudgeBatchResult[] = [];
    try {
      const batch = await this.client.messages.batches.retrieve(batchId);
      if (batch.processing_status !== 'ended') return null;
      for await (const { custom_id: customId, result } of await this.client.messages.batches.results(batchId)) {
        results.push(
          result.type === 'succeeded'
            ? { customId, answer: answerOf(result.message) }
            : { customId, error: batchResultError(result, batchId) },
        );
      }
    } catch (error) {
      if (error instanceof NotFoundError)
        throw new JudgeModelError(BATCH_NOT_FOUND, `The judge model provider has no Message Batch ${batchId}.`);
      throw asJudgeModelError(error, '', this.timeoutMs);
    }
    return results;
  }

  async findBatch(customIds: readonly string[], from: Date, to: Date): Promise<string | 'in-progress' | null> {
    const wanted = new Set(customIds);
    let inProgress = false;
    try {
      // Newest first: those created after the window are passed over, the first created before it ends the look.
      for await (const batch of this.client.messages.batches.list({ limit: 100 })) {
        const createdAt = Date.parse(batch.created_at);
        if (createdAt > to.getTime()) continue;
        if (createdAt < from.getTime()) break;
        // Its request count, in progress or ended, tells a batch of another size apart without reading it.
        if (Object.values(batch.request_counts).reduce((sum, n) => sum + n, 0) !== wanted.size) continue;
        if (batch.processing_status !== 'ended') {
          inProgress = true;
          continue;
        }
        const held = new Set<string>();
        for await (const { custom_id: customId } of await this.client.messages.batches.results(batch.id))
          held.add(customId);
        if (held.size === wanted.size && [...held].every((id) => wanted.has(id))) return batch.id;
      }
    } catch (error) {
      throw asJudgeModelError(error, '', this.timeoutMs);
    }
    return inProgress ? 'in-progress' : null;
  }
}

function paramsOf(request: JudgeModelRequest): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    system: [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: request.sharedPrompt, cache_control: { type: 'ephemeral' } },
          { type: 'text', text: request.prompt },
        ],
      },
    ],
    output_config: { format: { type: 'json_schema', schema: transformJSONSchema(request.answerSchema) } },
  };
}

function answerOf(message: Anthropic.Message): JudgeModelAnswer {
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const { usage } = message;
  return {
    text,
    usage: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
      cacheReadTokens: usage.cache_read_input_tokens ?? 0,
    },
  };
}

/**
 * A batch request without an answer. An errored one carries the error the live call would have got (its type
 * only: the message may quote the request), so a refused key or model pauses the space as a live call does;
 * an expired or canceled one is a failed attempt.
 */
function batchResultError(
  result: Exclude<Anthropic.Messages.MessageBatchResult, { type: 'succeeded' }>,
  batchId: string,
): JudgeModelError {
  if (result.type !== 'errored') {
    return new JudgeModelError(
      `batch-${result.type}`,
      `The judge model's batch ${batchId} ended without answering this request (${result.type}).`,
    );
  }
  const type = result.error.error.type;
  if (type === 'authentication_error' || type === 'permission_error')
    return new JudgeModelError(
      'bad-credentials',
      'The judge model provider refused the credentials; judging of this space is paused.',
      true,
    );
  if (type === 'not_found_error')
    return new JudgeModelError(
      'model-unavailable',
      'The judge model provider does not know the model or has retired it; judging of this space is paused ' +
        'until the configuration names a current model.',
      true,
    );
  return new JudgeModelError(
    `provider-batch-${type.replaceAll('_', '-')}`,
    `The judge model provider answered this request of batch ${batchId} with an error (${type}).`,
  );
}

function asJudgeModelError(error: unknown, model: string, timeoutMs: number): unknown {
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
    return new JudgeModelError(
      'bad-credentials',
      `The judge model provider refused the credentials (HTTP ${error.status}); judging of this space is paused.`,
      true,
    );
  }
  if (error instanceof NotFoundError && errorType(error) === 'not_found_error') {
    return new JudgeModelError(
      'model-unavailable',
      `The judge model provider does not know the model "${model}" or has retired ` +
        `it; judging of this space is paused until the configuration names a current model.`,
      true,
    );
  }
  if (error instanceof APIConnectionTimeoutError)
    return new JudgeModelError(
      'provider-timeout',
      `The judge model did not answer within ${timeoutMs / 1000} s.`,
      false,
      true,
    );
  if (error instanceof APIConnectionError)
    return new JudgeModelError('provider-unreachable', 'The judge model provider could not be reached.', false, true);
  if (error instanceof APIError && error.status !== undefined) {
    const type = errorType(error);
    return new JudgeModelError(
      `provider-http-${error.status}`,
      `The judge model provider answered HTTP ${error.status}${type ? ` (${type})` : ''}.`,
      false,
      [500, 502, 504].includes(error.status),
    );
  }
  return error;
}

/** The provider's error type ("overloaded_error", …): a name from a fixed set, safe to keep. */
function errorType(error: APIError): string | null {
  const type = (error.error as { error?: { type?: unknown } } | undefined)?.error?.type;
  return typeof type === 'string' && /^[a-z_]{1,40}$/.test(type) ? type : null;
}
