// `npm start` as a real child process (its own process group), for tests that kill and restart it.
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

export interface LocalProcess {
  child: ChildProcess;
  url: string;
  output(): string;
}

export function startLocalProcess(env: Record<string, string>): Promise<LocalProcess> {
  const child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), 'infra/local/main.ts'], {
    cwd: root,
    // PORT 0 (any free port) unless the test needs the same port across a restart.
    env: { ...process.env, PORT: '0', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolvePromise, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /local mode: (http:\/\/[\d.:]+)\//.exec(out);
      if (match) resolvePromise({ child, url: match[1]!, output: () => out });
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`local mode exited (${code}): ${out}`)));
  });
}

/** SIGKILL, as a crash would: no shutdown handler runs. Resolves once the process is gone, as after a crash. */
export function killProcess(local: LocalProcess): Promise<void> {
  const { child } = local;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
  return exited;
}
