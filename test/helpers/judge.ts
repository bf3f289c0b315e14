// The judge's world for tests: real emulators, the Anthropic and GitHub stand-ins reached through the real
// SDK adapters, a GitHub App key pair, a settable clock, and landing through the real landing code.
import { generateKeyPairSync } from 'node:crypto';
import { landEntry } from '../../shared/landing/land.ts';
import { inboxEntrySchema } from '../../shared/schema/messages.ts';
import { parseConfig, type ReplayConfig } from '../../shared/schema/config.ts';
import type { JudgeMessage, MessageQueue } from '../../shared/ports.ts';
import type { JudgeDeps } from '../../shared/judge/judge-run.ts';
import type { SweepDeps } from '../../shared/judge/sweep.ts';
import { AnthropicJudgeModel } from '../../shared/adapters/anthropic-judge-model.ts';
import { GitHubReferenceSource } from '../../shared/adapters/github-reference-source.ts';
import { startAnthropicStandIn, type AnthropicStandIn, type MessagesRequest, type StandInAnswer } from '../../infra/local/stand-ins/anthropic-stand-in.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../../infra/local/stand-ins/github-stand-in.ts';
import { startTestStores, type TestStores } from './emulators.ts';
import { runDelivery } from './deliveries.ts';

export const API_KEY = 'sk-test-judge';
export const APP = { appId: '4242', installationId: '77' };

export const goodAnswer = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({ verdict: 'resolved', rootCauseFound: true, sameFilesAsReference: true, testAdded: false, wouldCompile: true, reason: 'Fixes the null check like the reference.', ...overrides });

export class RecordingQueue implements MessageQueue<JudgeMessage> {
  readonly sent: JudgeMessage[] = [];
  async send(message: JudgeMessage) {
    this.sent.push(message);
  }
}

export interface JudgeWorld {
  stores: TestStores;
  anthropic: AnthropicStandIn;
  github: GitHubStandIn;
  config: ReplayConfig;
  privateKey: string;
  /** What the model stand-in answers; replace per test. */
  answer: (request: MessagesRequest) => StandInAnswer | Promise<StandInAnswer>;
  now: Date;
  deps(overrides?: Partial<JudgeDeps>): JudgeDeps;
  sweepDeps(queue: RecordingQueue): SweepDeps;
  /** Lands a run through the real landing code and returns the judge message landing sent. */
  land(space: string, rowOverrides?: Record<string, unknown>, extra?: Record<string, unknown>): Promise<JudgeMessage>;
  putIssue(space: string, taskId: string, repo?: string, shas?: { baseSha: string; mergeSha: string } | null): Promise<void>;
  advance(seconds: number): void;
  stop(): Promise<void>;
}

export async function startJudgeWorld(config: unknown): Promise<JudgeWorld> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const stores = await startTestStores();
  const world: JudgeWorld = {
    stores,
    anthropic: undefined as unknown as AnthropicStandIn,
    github: await startGitHubStandIn({ app: { ...APP, publicKey } }),
    config: parseConfig(config),
    privateKey,
    answer: () => goodAnswer(),
    now: new Date(),
    deps(overrides = {}) {
      const model = new AnthropicJudgeModel({ apiKey: API_KEY, baseURL: world.anthropic.url });
      const reference = new GitHubReferenceSource({ kind: 'app', appId: APP.appId, installationId: APP.installationId, privateKey }, world.github.url);
      return {
        config: world.config,
        runs: stores.store,
        issues: stores.store,
        budget: stores.store,
        judging: stores.store,
        objects: stores.data,
        model: async () => model,
        reference: async () => reference,
        clock: { now: () => world.now },
        maxDiffChars: 100_000,
        ...overrides,
      };
    },
    sweepDeps: (queue) => ({ config: world.config, runs: stores.store, judging: stores.store, judgeQueue: queue, clock: { now: () => world.now } }),
    async land(space, rowOverrides = {}, extra = {}) {
      const queue = new RecordingQueue();
      const delivery = runDelivery(rowOverrides, extra);
      const entry = inboxEntrySchema.parse({ space, deliveryId: `d-${Math.random()}`, receivedAt: world.now.toISOString(), host: 'mac-studio-1', delivery });
      await landEntry({ runs: stores.store, attempts: stores.store, issues: stores.store, hosts: stores.store, objects: stores.data, inbox: stores.inbox, judgeQueue: queue, clock: { now: () => world.now } }, entry);
      return queue.sent[0] ?? { space, id: delivery.id as string, finishedAt: entry.delivery.kind === 'run' ? entry.delivery.row.finishedAt : '' };
    },
    async putIssue(space, taskId, repo = 'acme/widgets', shas = { baseSha: 'a'.repeat(40), mergeSha: 'b'.repeat(40) }) {
      await stores.store.putIssue({
        taskId,
        order: 1,
        repo,
        issueNumber: 42,
        fixPrNumber: 43,
        tier: 'easy',
        wave: 1,
        codeLinesChanged: null,
        codeFilesChanged: null,
        filesChanged: null,
        linesAdded: null,
        linesRemoved: null,
        fixHasTests: null,
        originalFixModel: null,
        commits: null,
        issueToMergeHours: null,
        prToMergeHours: null,
        mergedAt: null,
        baseSha: shas?.baseSha ?? null,
        mergeSha: shas?.mergeSha ?? null,
        space,
        updatedAt: world.now.toISOString(),
      });
    },
    advance(seconds) {
      world.now = new Date(world.now.getTime() + seconds * 1000);
    },
    async stop() {
      await Promise.all([world.anthropic.stop(), world.github.stop()]);
      await stores.stop();
    },
  };
  world.anthropic = await startAnthropicStandIn({ apiKey: API_KEY, answer: (request) => world.answer(request) });
  return world;
}
