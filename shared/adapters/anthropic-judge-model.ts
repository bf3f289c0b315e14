// The judge model over the Anthropic Messages API: one tool-free call, no SDK retries (the judge's own
// schedule retries, and each attempt is exactly one request against the budget), failures mapped to codes
// whose messages never carry a key.
import Anthropic from '@anthropic-ai/sdk';
import { JudgeModelError, type JudgeModel, type JudgeModelAnswer, type JudgeModelRequest } from '../ports.ts';

/** Below the judge function's timeout, which also covers the reference fetch and the writes. */
const CALL_TIMEOUT_MS = 90_000;

export class AnthropicJudgeModel implements JudgeModel {
  private readonly client: Anthropic;

  constructor(options: { apiKey: string; baseURL?: string }) {
    this.client = new Anthropic({ apiKey: options.apiKey, baseURL: options.baseURL, maxRetries: 0, timeout: CALL_TIMEOUT_MS });
  }

  async ask(request: JudgeModelRequest): Promise<JudgeModelAnswer> {
    let message: Anthropic.Message;
    try {
      message = await this.client.messages.create({
        model: request.model,
        max_tokens: request.maxTokens,
        system: request.system,
        messages: [{ role: 'user', content: request.prompt }],
      });
    } catch (error) {
      throw asJudgeModelError(error);
    }
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    return { text, inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens };
  }
}

function asJudgeModelError(error: unknown): unknown {
  if (error instanceof Anthropic.AuthenticationError || error instanceof Anthropic.PermissionDeniedError) {
    return new JudgeModelError('provider-refused', `The judge model provider refused the credentials (HTTP ${error.status}); judging of this space is paused.`, true);
  }
  if (error instanceof Anthropic.APIConnectionTimeoutError) return new JudgeModelError('provider-timeout', `The judge model did not answer within ${CALL_TIMEOUT_MS / 1000} s.`);
  if (error instanceof Anthropic.APIConnectionError) return new JudgeModelError('provider-unreachable', 'The judge model provider could not be reached.');
  if (error instanceof Anthropic.APIError && error.status !== undefined) {
    return new JudgeModelError(`provider-http-${error.status}`, `The judge model provider answered HTTP ${error.status}${errorType(error)}.`);
  }
  return error;
}

/** The provider's error type ("overloaded_error", …): a name from a fixed set, safe to keep. */
function errorType(error: InstanceType<typeof Anthropic.APIError>): string {
  const type = (error.error as { error?: { type?: unknown } } | undefined)?.error?.type;
  return typeof type === 'string' && /^[a-z_]{1,40}$/.test(type) ? ` (${type})` : '';
}
