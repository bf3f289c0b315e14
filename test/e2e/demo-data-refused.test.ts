// `npm run demo` reads its data before it starts anything: a missing or corrupt data file stops it with exit 1
// and a message naming the file (and line), and nothing is served.
import { execFile } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DEMO_DATA_DIR, DEMO_DATA_FILES } from '#demo/data.ts';
import { tempDir } from '../helpers/run-folders.ts';

const root = resolve(import.meta.dirname, '../..');

/** The demo's own process, pointed at `dataDir` and at a port nothing listens on. */
function demo(dataDir: string): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(root, 'node_modules/tsx/dist/cli.mjs'), 'demo/main.ts', '--data', dataDir],
      { cwd: root, env: { ...process.env, PORT: '1' }, timeout: 60_000 },
      (error, stdout, stderr) => done({ code: error ? (error.code as number) : 0, stdout, stderr }),
    );
  });
}

const copy = () => {
  const dir = join(tempDir('replay-demo-refused-'), 'swe-bench-lite');
  cpSync(DEMO_DATA_DIR, dir, { recursive: true });
  return dir;
};

describe('npm run demo with a broken data folder', () => {
  it('stops when a data file is missing, naming it', async () => {
    const dir = copy();
    rmSync(join(dir, DEMO_DATA_FILES.runs));
    const { code, stderr, stdout } = await demo(dir);
    expect(code).toBe(1);
    expect(stderr).toContain(`${join(dir, DEMO_DATA_FILES.runs)} is missing.`);
    expect(stdout).not.toMatch(/Cockpit:/);
  });

  it('stops when a data file is corrupt, naming the file', async () => {
    const dir = copy();
    writeFileSync(join(dir, DEMO_DATA_FILES.configurations), '[{"id": "half');
    const { code, stderr } = await demo(dir);
    expect(code).toBe(1);
    expect(stderr).toContain(`${join(dir, DEMO_DATA_FILES.configurations)} is corrupt: it is not JSON.`);
  });
});
