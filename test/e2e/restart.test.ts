// What got a 202 survives a kill: the delivery is in the durable inbox before the answer, and local mode
// replays the inbox on start (the emulated queue itself is in memory).
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { pushDelivery } from '../../shared/runner/push.ts';
import { runDelivery } from '../helpers/deliveries.ts';
import { eventually } from '../helpers/local-mode.ts';
import { killProcess, startLocalProcess, type LocalProcess } from '../helpers/local-process.ts';

const started: LocalProcess[] = [];
afterEach(() => started.splice(0).forEach(killProcess));

async function start(env: Record<string, string>): Promise<LocalProcess> {
  const local = await startLocalProcess(env);
  started.push(local);
  return local;
}

describe('local mode across a kill', () => {
  it('lands every delivery that got a 202, even when killed right after answering', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-restart-'));
    mkdirSync(join(dir, 'keys'));
    writeFileSync(join(dir, 'keys', 'Hosting__ModuleReportSecret__mac-studio-1'), 'restart-key');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ spaces: { S: { senders: ['mac-studio-1'] } } }));
    const env = {
      REPLAY_CONFIG: join(dir, 'config.json'),
      REPLAY_DATA_DIR: join(dir, 'data'),
      REPLAY_KEYS_DIR: join(dir, 'keys'),
    };

    const first = await start(env);
    const deliveries = Array.from({ length: 30 }, (_, i) => runDelivery({ taskId: `kill-${i}` }));
    const answers = await Promise.all(deliveries.map((d) => pushDelivery(first.url, 'S', d, 'restart-key')));
    await killProcess(first);
    expect(answers.every((a) => a.status === 202)).toBe(true);

    const second = await start(env);
    const ids = await eventually(
      async () => {
        const res = await fetch(`${second.url}/api/spaces/S/runs`);
        const { runs } = (await res.json()) as { runs: { id: string }[] };
        return runs.length === deliveries.length && runs.map((r) => r.id);
      },
      10_000,
      100,
    );
    expect(ids.sort()).toEqual(deliveries.map((d) => d.id as string).sort());
  }, 120_000); // two local-mode processes start, one after the other
});
