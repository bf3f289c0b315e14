// What got a 202 survives a kill: the delivery is in the durable inbox before the answer, and local mode
// replays the inbox on start (the emulated queue itself is in memory). The kill is a SIGKILL of a real
// `npm start` process; local mode then starts again on its data in the test process.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { pushDelivery } from '#runner/push.ts';
import { runDelivery } from '../helpers/deliveries.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import { killProcess, startLocalProcess, type LocalProcess } from '../helpers/local-process.ts';

const CONFIG = { spaces: { S: { senders: ['mac-studio-1'] } } };
let killed: LocalProcess | undefined;
let restarted: TestLocalMode | undefined;
afterAll(async () => {
  if (killed) await killProcess(killed);
  await restarted?.stop();
});

describe('local mode across a kill', () => {
  it('lands every delivery that got a 202, even when killed right after answering', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-restart-'));
    mkdirSync(join(dir, 'keys'));
    writeFileSync(join(dir, 'keys', 'Hosting__ModuleReportSecret__mac-studio-1'), 'restart-key');
    writeFileSync(join(dir, 'config.json'), JSON.stringify(CONFIG));
    const dataDir = join(dir, 'data');
    const keysDir = join(dir, 'keys');

    killed = await startLocalProcess({
      REPLAY_CONFIG: join(dir, 'config.json'),
      REPLAY_DATA_DIR: dataDir,
      REPLAY_KEYS_DIR: keysDir,
    });
    const deliveries = Array.from({ length: 16 }, (_, i) => runDelivery({ taskId: `kill-${i}` }));
    const answers = await Promise.all(deliveries.map((d) => pushDelivery(killed!.url, 'S', d, 'restart-key')));
    await killProcess(killed);
    expect(answers.every((a) => a.status === 202)).toBe(true);

    const logged: string[] = [];
    restarted = await startTestLocalMode(
      CONFIG,
      { 'mac-studio-1': 'restart-key' },
      {
        dataDir,
        keysDir,
        log: (line) => logged.push(line),
      },
    );
    // At least the last answered delivery had not landed when the process died: the inbox brought it back.
    expect(logged.join('\n')).toMatch(/Replayed [1-9]\d* accepted deliveries that had not landed/);
    const ids = await eventually(async () => {
      const res = await fetch(`${restarted!.url}/api/spaces/S/runs`);
      const { runs } = (await res.json()) as { runs: { id: string }[] };
      return runs.length === deliveries.length && runs.map((r) => r.id);
    }, 30_000); // landing 16 replayed deliveries beside other suites on two cores took over 10 s
    expect(ids.sort()).toEqual(deliveries.map((d) => d.id as string).sort());
  }, 60_000); // an `npm start` process, then local mode again, on a shared machine
});
