// The judge model adapter over the real Anthropic SDK against the stand-in: one request per call whatever
// the answer, each failure mapped to its code, the usage with its cache figures, and the answer asked for
// as structured output of the verdict schema. The same requests as one Message Batch through the SDK's
// `messages.batches` (create, retrieve, the results JSONL): each result matched by its custom_id, and each
// request without an answer mapped to the code a live call's failure gets.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AnthropicJudgeModel } from '#adapters/anthropic-judge-model.ts';
import { JudgeModelError, type JudgeModelRequest } from '#core/ports.ts';
import { JUDGE_ANSWER_JSON_SCHEMA } from '#core/judge/answer.ts';
import {
  startAnthropicStandIn,
  type AnthropicStandIn,
  type StandInAnswer,
} from '#infra/local/stand-ins/anthropic-stand-in.ts';

const API_KEY = 'sk-ant-test-key';
const request = (model: string): JudgeModelRequest => ({
  model,
  system: 'You judge.',
  sharedPrompt: 'The issue and the reference fix.',
  prompt: 'The patch.',
  maxTokens: 256,
  answerSchema: JUDGE_ANSWER_JSON_SCHEMA,
});

// The stand-in answers by model name; "claude-hold" answers only once the test is over.
let release: () => void;
const held = new Promise<StandInAnswer>((resolve) => (release = () => resolve('late')));
const ANSWERS: Record<string, () => StandInAnswer | Promise<StandInAnswer>> = {
  'claude-ok': () => '{"verdict":"resolved"}',
  'claude-overloaded': () => ({ status: 529 }),
  'claude-broken': () => ({ status: 500 }),
  'claude-forbidden': () => ({ status: 403 }),
  'claude-hold': () => held,
  'claude-expired': () => ({ batchResult: 'expired' }),
  'claude-canceled': () => ({ batchResult: 'canceled' }),
};

let standIn: AnthropicStandIn;
beforeAll(async () => {
  standIn = await startAnthropicStandIn({
    apiKey: API_KEY,
    models: Object.keys(ANSWERS),
    answer: (r) => ANSWERS[r.model]!(),
  });
});
afterAll(async () => {
  release();
  await standIn.stop();
});

const model = (options: { apiKey?: string; baseURL?: string; timeoutMs?: number } = {}) =>
  new AnthropicJudgeModel({ apiKey: API_KEY, baseURL: standIn.url, ...options });

/** What `ask` threw, and how many requests the stand-in saw for it. */
async function failure(judge: AnthropicJudgeModel, modelName: string) {
  const before = standIn.requests.length;
  const error = await judge.ask(request(modelName)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JudgeModelError);
  const { code, message, pausesJudging, unanswered } = error as JudgeModelError;
  return { code, message, pausesJudging, unanswered, requests: standIn.requests.length - before };
}

describe('the Anthropic judge model', () => {
  it('sends the system prompt and the shared part with cache breakpoints, and reports the cache in the usage', async () => {
    const first = await model().ask(request('claude-ok'));
    const second = await model().ask(request('claude-ok'));
    expect(first.text).toBe('{"verdict":"resolved"}');
    expect(standIn.requests.at(-1)!.body).toMatchObject({
      model: 'claude-ok',
      max_tokens: 256,
      system: [{ type: 'text', text: 'You judge.', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'The issue and the reference fix.', cache_control: { type: 'ephemeral' } },
            { type: 'text', text: 'The patch.' },
          ],
        },
      ],
    });
    expect(first.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(second.usage).toEqual({
      ...first.usage,
      cacheWriteTokens: 0,
      cacheReadTokens: first.usage.cacheWriteTokens,
    });
  });

  it('asks for the answer as JSON of the verdict schema, in the subset the API takes, with no tools', async () => {
    await model().ask(request('claude-ok'));
    const body = standIn.requests.at(-1)!.body;
    expect(body.tools).toBeUndefined();
    expect(body.output_config).toEqual({
      format: {
        type: 'json_schema',
        schema: {
          type: 'object',
          properties: {
            verdict: { enum: ['resolved', 'partial', 'wrong'] },
            rootCauseFound: { type: 'boolean' },
            sameFilesAsReference: { type: 'boolean' },
            testAdded: { type: 'boolean' },
            wouldCompile: { type: 'boolean' },
            // The API takes no string length: the SDK's transform says it in the description instead.
            reason: { type: 'string', description: '{minLength: 1}' },
          },
          required: ['verdict', 'rootCauseFound', 'sameFilesAsReference', 'testAdded', 'wouldCompile', 'reason'],
          additionalProperties: false,
        },
      },
    });
  });

  it('needs its transform: the stand-in, like the API, refuses the schema as zod writes it', async () => {
    const ask = (schema: Record<string, unknown>) =>
      fetch(`${standIn.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
        body: JSON.stringify({
          model: 'claude-ok',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'x' }],
          output_config: { format: { type: 'json_schema', schema } },
        }),
      });
    const refused = await ask(JUDGE_ANSWER_JSON_SCHEMA);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: { type: 'invalid_request_error', message: expect.stringContaining("'minLength' is not supported") },
    });
    expect((await ask({ type: 'object', properties: {} })).status).toBe(400);
  });

  it('makes exactly one request for an error the SDK would retry, and names its status and type', async () => {
    expect(await failure(model(), 'claude-overloaded')).toEqual({
      code: 'provider-http-529',
      message: 'The judge model provider answered HTTP 529 (overloaded_error).',
      pausesJudging: false,
      unanswered: false,
      requests: 1,
    });
    // A 500 may come after the provider acted on the request: unanswered, as a timeout is.
    expect(await failure(model(), 'claude-broken')).toMatchObject({
      code: 'provider-http-500',
      unanswered: true,
      requests: 1,
    });
  });

  it('pauses judging for a refused or forbidden key and for a model the provider does not know', async () => {
    expect(await failure(model({ apiKey: 'sk-ant-revoked' }), 'claude-ok')).toMatchObject({
      code: 'bad-credentials',
      pausesJudging: true,
      requests: 1,
    });
    expect(await failure(model(), 'claude-forbidden')).toMatchObject({
      code: 'bad-credentials',
      pausesJudging: true,
      requests: 1,
    });
    expect(await failure(model(), 'claude-retired')).toMatchObject({
      code: 'model-unavailable',
      message: expect.stringContaining('"claude-retired"'),
      pausesJudging: true,
      requests: 1,
    });
  });

  it('gives up on a call that outlasts its timeout, once', async () => {
    expect(await failure(model({ timeoutMs: 300 }), 'claude-hold')).toEqual({
      code: 'provider-timeout',
      message: 'The judge model did not answer within 0.3 s.',
      pausesJudging: false,
      unanswered: true,
      requests: 1,
    });
  });

  it('reports a provider it cannot reach', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await failure(model({ baseURL: `http://127.0.0.1:${port}` }), 'claude-ok')).toMatchObject({
      code: 'provider-unreachable',
      pausesJudging: false,
      unanswered: true,
      requests: 0,
    });
  });
});

describe('the Anthropic judge model, in batches', () => {
  it('submits the requests as one batch and reads each result by its custom_id', async () => {
    const names = [
      'claude-ok',
      'claude-overloaded',
      'claude-forbidden',
      'claude-retired',
      'claude-expired',
      'claude-canceled',
    ];
    const judge = model();
    const batchId = await judge.submitBatch(names.map((name) => ({ customId: `run-${name}`, request: request(name) })));
    expect(batchId).toBe(standIn.batches.at(-1));
    const results = await judge.batchResults(batchId);
    const byId = new Map(results!.map((r) => [r.customId, r]));
    expect(byId.size).toBe(names.length);
    expect(byId.get('run-claude-ok')).toEqual({
      customId: 'run-claude-ok',
      answer: { text: '{"verdict":"resolved"}', usage: expect.objectContaining({ inputTokens: expect.any(Number) }) },
    });
    const failureOf = (name: string) => {
      const result = byId.get(`run-${name}`)!;
      if (!('error' in result)) throw new Error(`${name} answered`);
      return { code: result.error.code, pausesJudging: result.error.pausesJudging };
    };
    expect(failureOf('claude-overloaded')).toEqual({ code: 'provider-batch-overloaded-error', pausesJudging: false });
    expect(failureOf('claude-forbidden')).toEqual({ code: 'bad-credentials', pausesJudging: true });
    expect(failureOf('claude-retired')).toEqual({ code: 'model-unavailable', pausesJudging: true });
    expect(failureOf('claude-expired')).toEqual({ code: 'batch-expired', pausesJudging: false });
    expect(failureOf('claude-canceled')).toEqual({ code: 'batch-canceled', pausesJudging: false });
  });

  it('answers null while the batch is in progress, and refuses a key as a live call does', async () => {
    const holding = await startAnthropicStandIn({ apiKey: API_KEY, holdBatches: true, answer: () => '{}' });
    try {
      const judge = new AnthropicJudgeModel({ apiKey: API_KEY, baseURL: holding.url });
      const batchId = await judge.submitBatch([{ customId: 'only', request: request('claude-ok') }]);
      expect(await judge.batchResults(batchId)).toBeNull();
      await holding.endBatches();
      expect(await judge.batchResults(batchId)).toHaveLength(1);
      const refused = new AnthropicJudgeModel({ apiKey: 'sk-ant-revoked', baseURL: holding.url });
      await expect(refused.submitBatch([{ customId: 'only', request: request('claude-ok') }])).rejects.toMatchObject({
        code: 'bad-credentials',
        pausesJudging: true,
      });
    } finally {
      await holding.stop();
    }
  });

  it('finds the batch created in a window that holds a request, through pages of the list, newest first', async () => {
    let now = new Date('2026-11-20T10:00:00.000Z');
    const holding = await startAnthropicStandIn({
      apiKey: API_KEY,
      holdBatches: true,
      answer: () => '{}',
      now: () => now,
    });
    try {
      const judge = new AnthropicJudgeModel({ apiKey: API_KEY, baseURL: holding.url });
      const at = (minutes: number) => new Date(Date.parse('2026-11-20T10:00:00.000Z') + minutes * 60_000);
      const submit = async (minute: number, customId: string) => {
        now = at(minute);
        return judge.submitBatch([{ customId, request: request('claude-ok') }]);
      };
      const before = await submit(0, 'wanted');
      const inWindow = await submit(10, 'other');
      const wanted = await submit(11, 'wanted-too');
      // Past one page of the list (100), all created after the window.
      for (let k = 0; k < 101; k++) await submit(30, `later-${k}`);
      // A batch of the window still in progress: its requests cannot be read yet.
      expect(await judge.findBatch(['wanted-too'], at(9), at(12))).toBe('in-progress');
      // One of another size is told apart while in progress: it cannot be the submission of these two.
      expect(await judge.findBatch(['wanted-too', 'nothing'], at(9), at(12))).toBeNull();
      await holding.endBatches();
      expect(await judge.findBatch(['wanted-too'], at(9), at(12))).toBe(wanted);
      // Only a batch of exactly these requests: one holding some of them, or more, is another submission's.
      expect(await judge.findBatch(['wanted-too', 'nothing'], at(9), at(12))).toBeNull();
      expect(await judge.findBatch(['other'], at(9), at(12))).toBe(inWindow);
      // Only the window is looked at: a batch made before it, holding the request, is not the one.
      expect(await judge.findBatch(['wanted'], at(9), at(12))).toBeNull();
      expect(before).not.toBe(wanted);
      const refused = new AnthropicJudgeModel({ apiKey: 'sk-ant-revoked', baseURL: holding.url });
      await expect(refused.findBatch(['wanted'], at(9), at(12))).rejects.toMatchObject({ code: 'bad-credentials' });
    } finally {
      await holding.stop();
    }
  });
});
