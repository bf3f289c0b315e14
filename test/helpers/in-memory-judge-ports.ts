// The judge's outside services in memory, for handler and core tests: a model that answers from a script (with
// or without the provider's prompt cache) and the code host's issues and compare diffs.
import {
  JudgeModelError,
  ReferenceFetchError,
  type JudgeBatchRequest,
  type JudgeBatchResult,
  type JudgeModel,
  type JudgeModelAnswer,
  type JudgeModelRequest,
  type ReferenceSource,
} from '#core/ports.ts';
import type { TokenUsage } from '#core/ports.ts';

/**
 * A judge model that answers from a script (at once, or when a promise settles) and keeps the requests it was
 * sent. A batch ends when its results are first read, each request answered by the same script.
 */
export class ScriptedJudgeModel implements JudgeModel {
  readonly requests: JudgeModelRequest[] = [];
  readonly batches = new Map<string, JudgeBatchRequest[]>();

  constructor(
    public answer: (request: JudgeModelRequest) => string | JudgeModelError | Promise<string | JudgeModelError>,
  ) {}

  async ask(request: JudgeModelRequest): Promise<JudgeModelAnswer> {
    this.requests.push(request);
    const answer = await this.answer(request);
    if (answer instanceof JudgeModelError) throw answer;
    return { text: answer, usage: this.usage(request, answer) };
  }

  async submitBatch(requests: JudgeBatchRequest[]): Promise<string> {
    const id = `msgbatch_${this.batches.size + 1}`;
    this.batches.set(id, requests);
    return id;
  }

  async batchResults(batchId: string): Promise<JudgeBatchResult[] | null> {
    const results: JudgeBatchResult[] = [];
    for (const { customId, request } of this.batches.get(batchId) ?? []) {
      try {
        results.push({ customId, answer: await this.ask(request) });
      } catch (error) {
        if (!(error instanceof JudgeModelError)) throw error;
        results.push({ customId, error });
      }
    }
    return results;
  }

  /** The batch of exactly these requests; scripted batches end when read, so none is ever in progress. */
  async findBatch(customIds: readonly string[]): Promise<string | null> {
    const holds = ([, requests]: [string, JudgeBatchRequest[]]) =>
      requests.length === customIds.length && requests.every((r) => customIds.includes(r.customId));
    return [...this.batches].find(holds)?.[0] ?? null;
  }

  protected usage(request: JudgeModelRequest, answer: string): TokenUsage {
    return {
      inputTokens: estimateTokens(request.sharedPrompt + request.prompt),
      outputTokens: estimateTokens(answer),
      cacheWriteTokens: 0,
      cacheReadTokens: 0,
    };
  }
}

/**
 * A scripted model with the provider's prompt cache, keyed by model and prompt prefix up to the two
 * breakpoints the Anthropic adapter marks (the system prompt, then the task's shared part): the longest
 * prefix seen before is read from the cache, the rest up to the last breakpoint is written to it.
 */
export class PromptCachingJudgeModel extends ScriptedJudgeModel {
  private readonly cached = new Set<string>();

  protected override usage(request: JudgeModelRequest, answer: string): TokenUsage {
    const breakpoints = [request.system, request.system + request.sharedPrompt];
    const total = estimateTokens(request.system + request.sharedPrompt + request.prompt);
    const seen = [...breakpoints].reverse().find((prefix) => this.cached.has(`${request.model}\n${prefix}`));
    const cacheReadTokens = seen === undefined ? 0 : estimateTokens(seen);
    const cacheWriteTokens = seen === breakpoints[1] ? 0 : estimateTokens(breakpoints[1]!) - cacheReadTokens;
    for (const prefix of breakpoints) this.cached.add(`${request.model}\n${prefix}`);
    return {
      inputTokens: total - cacheReadTokens - cacheWriteTokens,
      outputTokens: estimateTokens(answer),
      cacheWriteTokens,
      cacheReadTokens,
    };
  }
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

/** The code host's issues and compare diffs; anything not set fails as the GitHub adapter reports a 404. */
export class InMemoryReferenceSource implements ReferenceSource {
  private readonly issueTexts = new Map<string, string>();
  private readonly diffs = new Map<string, string>();
  /** Every fetch asked of the code host, in order: `issue repo#n` or `diff repo@base...merge`. */
  readonly requests: string[] = [];

  setIssue(repo: string, issueNumber: number, text: string): this {
    this.issueTexts.set(`${repo}#${issueNumber}`, text);
    return this;
  }

  setDiff(repo: string, baseSha: string, mergeSha: string, diff: string): this {
    this.diffs.set(`${repo}@${baseSha}...${mergeSha}`, diff);
    return this;
  }

  async issueText(repo: string, issueNumber: number): Promise<string> {
    this.requests.push(`issue ${repo}#${issueNumber}`);
    const text = this.issueTexts.get(`${repo}#${issueNumber}`);
    if (text === undefined)
      throw new ReferenceFetchError('github-http-404', `GitHub answered HTTP 404 for the issue of ${repo}.`);
    return text;
  }

  async diff(repo: string, baseSha: string, mergeSha: string): Promise<string> {
    this.requests.push(`diff ${repo}@${baseSha}...${mergeSha}`);
    const diff = this.diffs.get(`${repo}@${baseSha}...${mergeSha}`);
    if (diff === undefined)
      throw new ReferenceFetchError('github-http-404', `GitHub answered HTTP 404 for the comparison of ${repo}.`);
    return diff;
  }
}
