// One wiring per function (issue 39): each function's dependencies are built by its `wire.ts`, from the same
// environment, in AWS (functions/aws-resources.ts) and in local mode (infra/local/local-mode.ts). The settings
// they carry — every number, string and flag, and the configuration — come out the same on both platforms.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as aws from '#functions/aws-resources.ts';
import type { PlatformResources } from '#functions/platform-resources.ts';
import { wire as wireIngest } from '#functions/ingest/wire.ts';
import { wire as wireLander } from '#functions/lander/wire.ts';
import { wire as wireReadApi } from '#functions/read-api/wire.ts';
import { wire as wireJudge } from '#functions/judge/wire.ts';
import { wire as wireSweeper } from '#functions/sweeper/wire.ts';
import { wire as wireCompactor } from '#functions/snapshot-compactor/wire.ts';
import { wire as wireReconciler } from '#functions/inbox-reconciler/wire.ts';
import { LAMBDA_ANSWER_BYTES, type ServiceName } from '#core/operations.ts';
import { systemClock, type ObjectStore } from '#core/ports.ts';
import { parseConfig } from '#schema/config.ts';
import { LANDING_MESSAGE_MAX_BYTES } from '#schema/messages.ts';
import { s3rverKeyFits } from '#infra/local/emulators.ts';
import { inboxKey, runTextsKey, snapshotManifestKey } from '#core/storage-layout.ts';
import { startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

const CONFIG = { spaces: { Main: { senders: ['mac-studio-1'] } }, cockpits: { Board: { space: 'Main' } } };
/** The settings a deployment or a developer sets in the environment. */
const ENV = { JUDGE_MAX_DIFF_CHARS: '12345' };
/**
 * Where the platforms differ by design: a Lambda answer's size limit, the landing message a delivery may travel
 * in (SQS is durable; local mode's queue lives in memory, so every delivery goes through its inbox). Local mode's
 * ingest also knows which object keys its S3 emulator takes (each part between slashes is a file name).
 */
const PLATFORM_ONLY: Partial<Record<ServiceName, string[]>> = {
  'read-api': ['maxAnswerBytes'],
  ingest: ['landingMessageMaxBytes'],
};

/** What the stack would set; building a client makes no request. */
const STACK_ENV = {
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'table',
  INBOX_BUCKET: 'inbox',
  DATA_BUCKET: 'data',
  LANDING_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/landing',
  LANDING_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/landing-dlq',
  JUDGE_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/judge',
};

function awsWiring(): Record<ServiceName, object> {
  const resources: PlatformResources = {
    config: parseConfig(CONFIG),
    table: aws.awsTable(),
    leases: aws.awsLeases(),
    reenqueueLedger: aws.awsReenqueueLedger(),
    inbox: aws.awsInbox(),
    data: aws.awsData(),
    bulkData: aws.awsBulkData(),
    landingQueue: aws.awsLandingQueue(),
    landingMessageMaxBytes: LANDING_MESSAGE_MAX_BYTES,
    landingDeadLetters: aws.awsLandingDeadLetters(),
    judgeQueue: aws.awsJudgeQueue(),
    hostKeys: aws.awsHostKeys(),
    pairing: aws.awsPairing(),
    secrets: aws.awsSecrets(),
    downloads: aws.awsDownloads(),
    answerBytes: LAMBDA_ANSWER_BYTES,
    clock: systemClock,
  };
  return {
    ingest: wireIngest(resources),
    lander: wireLander(resources),
    'read-api': wireReadApi(resources),
    judge: wireJudge(resources, ENV),
    sweeper: wireSweeper(resources),
    'snapshot-compactor': wireCompactor(resources),
    'inbox-reconciler': wireReconciler(resources),
  };
}

/** The values of a function's dependencies that are settings rather than services. */
const settingsOf = (deps: object, ignored: string[] = []) =>
  Object.fromEntries(
    Object.entries(deps).filter(
      ([name, value]) =>
        !ignored.includes(name) && (name === 'config' || ['number', 'string', 'boolean'].includes(typeof value)),
    ),
  );

let local: TestLocalMode;
const saved = { ...process.env };
beforeAll(async () => {
  Object.assign(process.env, STACK_ENV);
  local = await startTestLocalMode(CONFIG, { 'mac-studio-1': 'k'.repeat(64) }, { env: ENV });
});
afterAll(async () => {
  process.env = saved;
  await local?.stop();
});

describe("every function's wiring", () => {
  it('is built for AWS and for local mode by the same wire.ts, with the same settings from one environment', () => {
    const deployed = awsWiring();
    expect(Object.keys(local.wiring).sort()).toEqual(Object.keys(deployed).sort());
    for (const service of Object.keys(deployed) as ServiceName[]) {
      const ignored = PLATFORM_ONLY[service];
      expect({ service, settings: settingsOf(local.wiring[service], ignored) }).toEqual({
        service,
        settings: settingsOf(deployed[service], ignored),
      });
    }
    // The setting that had drifted: local mode took the judge's diff budget from no environment at all.
    expect(local.wiring.judge).toMatchObject({ maxDiffChars: 12345 });
    expect(deployed['read-api']).toMatchObject({ maxAnswerBytes: LAMBDA_ANSWER_BYTES });
    expect(deployed.ingest).toMatchObject({ landingMessageMaxBytes: LANDING_MESSAGE_MAX_BYTES });
    expect(local.wiring.ingest).toMatchObject({ landingMessageMaxBytes: undefined, objectKeyFits: s3rverKeyFits });
    expect(deployed.ingest).toMatchObject({ objectKeyFits: undefined });
  });
});

describe('local mode', () => {
  it("gives each function the data bucket through its own grant, refusing what AWS's would", async () => {
    const [space, id, at, sha] = [
      'Main',
      'qwen3:8b__acme__widgets-42__h1',
      '2026-11-29T08:10:00.000Z',
      'ab'.repeat(32),
    ];
    const texts = runTextsKey(space, id, at, sha);
    const objectsOf = (service: ServiceName) => ({
      objects: (local.wiring[service] as { objects: ObjectStore }).objects,
    });
    const [lander, judge, compactor, reader] = [
      objectsOf('lander'),
      objectsOf('judge'),
      objectsOf('snapshot-compactor'),
      objectsOf('read-api'),
    ];
    const refused = (write: Promise<unknown>) => expect(write).rejects.toMatchObject({ name: 'AccessDenied' });
    // The lander writes a run's texts; no other function may, and the lander writes no snapshot.
    await lander.objects.put(texts, '{}');
    await refused(compactor.objects.put(texts, '{}'));
    await refused(judge.objects.put(texts, '{}'));
    await refused(lander.objects.put(snapshotManifestKey(space), '{}'));
    // The judge and the space's read API read it; the compactor does not.
    expect(await judge.objects.getText(texts)).toBe('{}');
    expect(await reader.objects.getText(texts)).toBe('{}');
    await refused(compactor.objects.getText(texts));
    await refused(reader.objects.delete(texts));
  });

  it('gives each function the inbox through its own grant: ingest writes, the lander reads and deletes, the reconciler lists', async () => {
    const inboxOf = (service: ServiceName) => (local.wiring[service] as { inbox: ObjectStore }).inbox;
    const [ingest, lander, reconciler] = [inboxOf('ingest'), inboxOf('lander'), inboxOf('inbox-reconciler')];
    const key = inboxKey('Main', 'f0e1d2c3-b4a5-4697-8899-aabbccddeeff');
    const refused = (call: Promise<unknown>) => expect(call).rejects.toMatchObject({ name: 'AccessDenied' });
    expect(await ingest.putIfAbsent(key, '{}')).toBe(true);
    await refused(ingest.getText(key));
    await refused(ingest.list('inbox/'));
    expect(await reconciler.list('inbox/Main/')).toContain(key);
    await refused(reconciler.getText(key));
    await refused(reconciler.delete(key));
    expect(await lander.getText(key)).toBe('{}');
    await refused(lander.put(key, '{}'));
    await lander.delete(key);
  });
});
