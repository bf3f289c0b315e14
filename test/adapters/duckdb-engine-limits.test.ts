// Local mode's engine runs inside the read process: its memory and threads are the configuration's
// (`engine.memoryMb`, `engine.threads`), and it spills to a folder of its own, removed when it closes.
import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDbEngine } from '#adapters/local/duckdb-engine.ts';
import { parseConfig } from '#schema/config.ts';

describe('the DuckDB engine', () => {
  it('takes its memory limit and threads from the configuration, spilling to a folder it removes on close', async () => {
    const bucket = await mkdtemp(join(tmpdir(), 'engine-limits-'));
    const config = parseConfig({
      spaces: { Lab: { senders: ['mac-studio-1'] } },
      engine: { memoryMb: 96, threads: 1 },
    });
    const engine = await DuckDbEngine.open(bucket, '', null, config.engine);
    try {
      const [settings] = await engine.rows(
        `SELECT current_setting('memory_limit') AS memory, current_setting('threads') AS threads, ` +
          `current_setting('temp_directory') AS spill`,
      );
      expect(settings).toMatchObject({ memory: expect.stringMatching(/^9[0-9](\.[0-9]+)? MiB$/), threads: 1 });
      const spill = String(settings!['spill']);
      expect(existsSync(spill)).toBe(true);
      engine.close();
      expect(existsSync(spill)).toBe(false);
    } finally {
      await rm(bucket, { recursive: true, force: true });
    }
  });

  it('is given two gigabytes and two threads unless configured', () => {
    expect(parseConfig({ spaces: { Lab: { senders: ['mac-studio-1'] } } }).engine).toEqual({
      aboveRuns: 1_000_000,
      memoryMb: 2048,
      threads: 2,
    });
  });
});
