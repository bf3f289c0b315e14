// Logs an operator can follow (docs/deploy.md, "Following a delivery"): in local mode, two runs pushed at once are
// followed from ingest through landing to their verdict, and every log line either caused carries its delivery's
// correlation id, its run id once known and the invocation's Lambda context, and no secret.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pushDelivery } from '#runner/push.ts';
import { startAnthropicStandIn, type AnthropicStandIn } from '#infra/local/stand-ins/anthropic-stand-in.ts';
import { startGitHubStandIn, type GitHubStandIn } from '#infra/local/stand-ins/github-stand-in.ts';
import { issueDelivery, runDelivery } from '../helpers/deliveries.ts';
import { gitHubAppKeyPair, goodAnswer } from '../helpers/judge.ts';
import { capturingOutput, type LambdaOutput } from '../helpers/lambda-output.ts';
import { eventually, queueDrained, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

const BASE = 'a'.repeat(40);
const MERGE = 'b'.repeat(40);
const REFERENCE =
  'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-a\n+b\n';
// Shorter than 32 bytes, so ingest also logs its weak-key line for each delivery.
const HOST_KEY = 'weak-host-key-7f3a';
const ANTHROPIC_KEY = 'sk-local-never-logged-5b1e';
const { privateKey, publicKey } = gitHubAppKeyPair();

let local: TestLocalMode;
let anthropic: AnthropicStandIn;
let github: GitHubStandIn;

beforeAll(async () => {
  anthropic = await startAnthropicStandIn({ apiKey: ANTHROPIC_KEY, answer: () => goodAnswer() });
  github = await startGitHubStandIn({ app: { appId: '11', installationId: '22', publicKey } });
  github.setIssue('acme/widgets', 42, { title: 'Widgets crash', body: 'On empty input.' });
  github.setCompare('acme/widgets', BASE, MERGE, REFERENCE);
  local = await startTestLocalMode(
    { defaultJudgeModel: 'claude-test-judge', spaces: { Main: { senders: ['mac-studio-1'] } } },
    { 'mac-studio-1': HOST_KEY },
    {
      // Only the deliveries speak: the schedules run once at start, the compactor not at all.
      sweepIntervalSeconds: 3600,
      snapshotIntervalSeconds: 0,
      env: {
        POWERTOOLS_LOG_LEVEL: 'DEBUG',
        ANTHROPIC_API_KEY: ANTHROPIC_KEY,
        ANTHROPIC_BASE_URL: anthropic.url,
        GITHUB_API_URL: github.url,
        GITHUB_APP_ID: '11',
        GITHUB_APP_INSTALLATION_ID: '22',
        GITHUB_APP_PRIVATE_KEY: privateKey.replaceAll('\n', '\\n'),
      },
    },
  );
  const issue = issueDelivery({ taskId: 'acme__widgets-42', baseSha: BASE, mergeSha: MERGE });
  expect((await pushDelivery(local.url, 'Main', issue, HOST_KEY)).status).toBe(202);
  await queueDrained(local, 'landing');
});
afterAll(async () => {
  await local.stop();
  await Promise.all([anthropic.stop(), github.stop()]);
});

const judged = (id: string) =>
  eventually(async () => {
    const res = await fetch(`${local.url}/api/spaces/Main/runs/${encodeURIComponent(id)}`);
    return res.status === 200 && ((await res.json()) as { judgeVerdict?: string }).judgeVerdict;
  }, 15_000);

/** The log lines of the functions a delivery passes through (EMF blobs and other functions' lines left out). */
const pipelineLines = (output: LambdaOutput) =>
  output.lines.filter((line) => !('_aws' in line) && ['ingest', 'lander', 'judge'].includes(String(line.service)));

describe('following a delivery through the logs', () => {
  it("labels every line two simultaneous deliveries cause with that delivery's id, then its run id", async () => {
    const runs = ['qwen3:8b', 'llama3:70b'].map((model) => ({
      deliveryId: randomUUID(),
      delivery: runDelivery({ model, taskId: 'acme__widgets-42' }),
    }));
    const { output } = await capturingOutput(async () => {
      const answers = await Promise.all(
        runs.map(({ delivery, deliveryId }) => pushDelivery(local.url, 'Main', delivery, HOST_KEY, deliveryId)),
      );
      expect(answers.map((a) => a.status)).toEqual([202, 202]);
      for (const { delivery } of runs) await judged(delivery.id as string);
      await queueDrained(local, 'judge');
    });

    const lines = pipelineLines(output);
    for (const { deliveryId, delivery } of runs) {
      const own = lines.filter((line) => line.correlation_id === deliveryId);
      expect(own.map((line) => `${String(line.service)}: ${String(line.message)}`).sort()).toEqual([
        'ingest: a host signs with a key shorter than 32 bytes; pair it anew with a longer key',
        'ingest: delivery answered',
        'judge: judge',
        'lander: landed',
      ]);
      // The run id joins the delivery id as soon as the body has been read as this run.
      const beforeRead = own.filter((line) => line.service === 'ingest' && line.message !== 'delivery answered');
      expect(beforeRead.map((line) => line.run_id)).toEqual([undefined]);
      expect(own.filter((line) => !beforeRead.includes(line)).map((line) => line.run_id)).toEqual(
        Array(3).fill(delivery.id),
      );
    }
    // Nothing the two caused is unlabelled or labelled as the other one.
    expect(lines).toHaveLength(8);
    for (const line of lines) {
      expect(line).toMatchObject({
        function_name: `replay-local-${String(line.service)}`,
        function_request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        cold_start: expect.any(Boolean),
      });
    }
    for (const secret of [HOST_KEY, ANTHROPIC_KEY, privateKey.split('\n')[1]!])
      expect(output.text).not.toContain(secret);
  });
});
