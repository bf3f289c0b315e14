// A large OpenHands output.jsonl for the import memory bound (docs/performance.md, "Import memory"): the real
// fixture line (test/fixtures/import/openhands/) with its history repeated to the line size asked, each line
// its own instance, written as a stream; and the peak memory of importing it in a fresh Node process.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const FIXTURE = join(import.meta.dirname, '../fixtures/import/openhands/output.jsonl');
const CHILD = join(import.meta.dirname, 'import-memory-child.ts');
const MIB = 1024 * 1024;

/** Writes lines of about `lineBytes` until the file holds `bytes`; the number of lines. */
export async function writeLargeOutputJsonl(path: string, bytes: number, lineBytes = MIB): Promise<number> {
  const line = JSON.parse(readFileSync(FIXTURE, 'utf8').split('\n')[0]!) as { history: unknown[] };
  const eventBytes = JSON.stringify(line.history).length / line.history.length;
  const copies = Math.max(1, Math.round(lineBytes / (eventBytes * line.history.length)));
  const history = Array.from({ length: copies }, () => line.history).flat();
  const out = createWriteStream(path);
  let written = 0;
  let lines = 0;
  while (written < bytes) {
    const text = `${JSON.stringify({ ...line, instance_id: `bench__repo-${lines + 1}`, history })}\n`;
    written += Buffer.byteLength(text);
    lines++;
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return lines;
}

export interface MemoryReading {
  mode: 'import' | 'read' | 'none';
  runs: number;
  skipped: number;
  maxRssMiB: number;
  ms: number;
}

/** One mode of the child in a fresh Node process: `import` the file, `read` it only, or `none` (Node alone). */
export async function peakMemoryOf(mode: MemoryReading['mode'], file: string, root: string): Promise<MemoryReading> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHILD, mode, file, root], {
    maxBuffer: MIB,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as MemoryReading;
}
