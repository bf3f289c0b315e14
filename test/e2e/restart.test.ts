// What got a 202 survives a kill: the delivery is in the durable inbox before the answer, and local mode
// replays the inbox on start (the emulated queue itself is in memory).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pushDelivery } from '../../shared/client/push.ts';
import { runDelivery } from '../helpers/deliveries.ts';
import { eventually } from '../helpers/local-mode.ts';

const root = resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];
afterEach(() => children.splice(0).forEach((c) => killGroup(c)));

function killGroup(child: ChildProcess) {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

function start(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), 'infra/local/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env, PORT: '0' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolvePromise, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /local mode: (http:\/\/[\d.:]+)\//.exec(out);
      if (match) resolvePromise({ child, url: match[1]! });
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`local mode exited (${code}): ${out}`)));
  });
}

describe('local mode across a kill', () => {
  it('lands every delivery that got a 202, even when killed right after answering', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-restart-'));
    mkdirSync(join(dir, 'keys'));
    writeFileSync(join(dir, 'keys', 'Hosting__ModuleReportSecret__mac-studio-1'), 'restart-key');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ spaces: { S: { senders: ['mac-studio-1'] } } }));
    const env = { REPLAY_CONFIG: join(dir, 'config.json'), REPLAY_DATA_DIR: join(dir, 'data'), REPLAY_KEYS_DIR: join(dir, 'keys') };

    const first = await start(env);
    const deliveries = Array.from({ length: 30 }, (_, i) => runDelivery({ taskId: `kill-${i}` }));
    const answers = await Promise.all(deliveries.map((d) => pushDelivery(first.url, 'S', d, 'restart-key')));
    killGroup(first.child);
    expect(answers.every((a) => a.status === 202)).toBe(true);

    const second = await start(env);
    const ids = await eventually(async () => {
      const res = await fetch(`${second.url}/api/spaces/S/runs`);
      const { runs } = (await res.json()) as { runs: { id: string }[] };
      return runs.length === deliveries.length && runs.map((r) => r.id);
    }, 10_000, 100);
    expect(ids.sort()).toEqual(deliveries.map((d) => d.id as string).sort());
  });
});
