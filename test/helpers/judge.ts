// The judge's world for tests: real emulators, the Anthropic and GitHub stand-ins reached through the real
// SDK adapters, a GitHub App key pair, a settable clock, and landing through the real landing code.
import { generateKeyPair, generateKeyPairSync } from 'node:crypto';
import { promisify } from 'node:util';
import { landEntry } from '#core/landing/land.ts';
import { parseConfig, type ReplayConfig } from '#schema/config.ts';
import type { JudgeMessage } from '#core/ports.ts';
import type { JudgeDeps } from '#core/judge/judge-run.ts';
import type { SweepDeps } from '#core/judge/sweep.ts';
import { AnthropicJudgeModel } from '#adapters/anthropic-judge-model.ts';
import { GitHubReferenceSource } from '#adapters/github-reference-source.ts';
import {
  startAnthropicStandIn,
  type AnthropicStandIn,
  type MessagesRequest,
  type StandInAnswer,
} from '#infra/local/stand-ins/anthropic-stand-in.ts';
import { startGitHubStandIn, type GitHubStandIn } from '#infra/local/stand-ins/github-stand-in.ts';
import { startTestStores, type TestStores } from './emulators.ts';
import { inboxEntry, runDelivery } from './deliveries.ts';
import { RecordingQueue } from './in-memory-ports.ts';
import { LANDED_AT, storedIssue } from './records.ts';

export const API_KEY = 'sk-test-judge';
export const APP = { appId: '4242', installationId: '77' };

/** A merged fix that also changes two lock files, which the prompt leaves out. */
export const REFERENCE_DIFF_WITH_LOCK_FILES = [
  'diff --git a/src/widget.ts b/src/widget.ts',
  '--- a/src/widget.ts',
  '+++ b/src/widget.ts',
  '@@ -1 +1 @@',
  '-a',
  '+b',
  'diff --git a/package-lock.json b/package-lock.json',
  '--- a/package-lock.json',
  '+++ b/package-lock.json',
  '@@ -1,2 +1,2 @@',
  ' {',
  '-  "lockfileVersion": 2',
  '+  "lockfileVersion": 3',
  'diff --git a/Cargo.lock b/Cargo.lock',
  '--- a/Cargo.lock',
  '+++ b/Cargo.lock',
  '@@ -1 +1 @@',
  '-checksum = "old-cargo-checksum"',
  '+checksum = "new-cargo-checksum"',
  '',
].join('\n');

export const goodAnswer = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    verdict: 'resolved',
    rootCauseFound: true,
    sameFilesAsReference: true,
    testAdded: false,
    wouldCompile: true,
    reason: 'Fixes the null check like the reference.',
    ...overrides,
  });

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
  sweepDeps(queue: RecordingQueue<JudgeMessage>): SweepDeps;
  /** Lands a run through the real landing code and returns the judge message landing sent. */
  land(space: string, rowOverrides?: Record<string, unknown>, extra?: Record<string, unknown>): Promise<JudgeMessage>;
  putIssue(
    space: string,
    taskId: string,
    repo?: string,
    shas?: { baseSha: string; mergeSha: string } | null,
  ): Promise<void>;
  advance(seconds: number): void;
  stop(): Promise<void>;
}

const APP_KEY_OPTIONS = {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
} as const;

/** A GitHub App's signing key pair: the private key for our side, the public one for the stand-in. */
export function gitHubAppKeyPair(): { privateKey: string; publicKey: string } {
  return generateKeyPairSync('rsa', APP_KEY_OPTIONS);
}

export async function startJudgeWorld(config: unknown): Promise<JudgeWorld> {
  // The key is made off the main thread while the emulators start.
  const [{ privateKey, publicKey }, stores] = await Promise.all([
    promisify(generateKeyPair)('rsa', APP_KEY_OPTIONS),
    startTestStores(),
  ]);
  let landings = 0;
  const world: JudgeWorld = {
    stores,
    anthropic: undefined as unknown as AnthropicStandIn,
    github: await startGitHubStandIn({ app: { ...APP, publicKey } }),
    config: parseConfig(config),
    privateKey,
    answer: () => goodAnswer(),
    now: new Date(LANDED_AT),
    deps(overrides = {}) {
      const model = new AnthropicJudgeModel({ apiKey: API_KEY, baseURL: world.anthropic.url });
      const reference = new GitHubReferenceSource(
        { kind: 'app', appId: APP.appId, installationId: APP.installationId, privateKey },
        world.github.url,
      );
      return {
        config: world.config,
        runs: stores.store,
        attempts: stores.store,
        issues: stores.store,
        budget: stores.store,
        judging: stores.store,
        batches: stores.store,
        objects: stores.data,
        model: async () => model,
        reference: async () => reference,
        clock: { now: () => world.now },
        maxDiffChars: 100_000,
        ...overrides,
      };
    },
    sweepDeps: (queue) => ({
      config: world.config,
      runs: stores.store,
      judging: stores.store,
      batches: stores.store,
      judgeQueue: queue,
      clock: { now: () => world.now },
    }),
    async land(space, rowOverrides = {}, extra = {}) {
      const queue = new RecordingQueue<JudgeMessage>();
      const delivery = runDelivery(rowOverrides, extra);
      const entry = inboxEntry(space, delivery, { deliveryId: `d-${++landings}`, receivedAt: world.now.toISOString() });
      await landEntry(
        {
          runs: stores.store,
          attempts: stores.store,
          issues: stores.store,
          hosts: stores.store,
          objects: stores.data,
          inbox: stores.inbox,
          judgeQueue: queue,
          clock: { now: () => world.now },
        },
        entry,
      );
      return (
        queue.sent[0] ?? {
          space,
          id: delivery.id,
          finishedAt: entry.delivery.kind === 'run' ? entry.delivery.row.finishedAt : '',
        }
      );
    },
    async putIssue(space, taskId, repo = 'acme/widgets', shas = { baseSha: 'a'.repeat(40), mergeSha: 'b'.repeat(40) }) {
      await stores.store.putIssue(
        storedIssue(
          { taskId, repo, baseSha: shas?.baseSha ?? null, mergeSha: shas?.mergeSha ?? null },
          { space, updatedAt: world.now.toISOString() },
        ),
      );
    },
    advance(seconds) {
      world.now = new Date(world.now.getTime() + seconds * 1000);
    },
    async stop() {
      await Promise.all([world.anthropic.stop(), world.github.stop()]);
      await stores.stop();
    },
  };
  world.anthropic = await startAnthropicStandIn({
    apiKey: API_KEY,
    answer: (request) => world.answer(request),
    now: () => world.now,
  });
  return world;
}
