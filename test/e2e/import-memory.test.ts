// Issue bound (docs/performance.md, "Import memory"): `replay-push import openhands` streams its output.jsonl a
// line at a time, so its memory does not grow with the file. Scaled down from the bench's 2 GiB to 160 MiB of
// 1 MiB lines: a reader that held the file whole would pass 300 MiB on its own.
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { peakMemoryOf, writeLargeOutputJsonl } from '../helpers/large-output-jsonl.ts';
import { tempDir } from '../helpers/run-folders.ts';

describe('importing a large output.jsonl', () => {
  it('imports every line of a 160 MiB file within 300 MiB of peak memory', async () => {
    const dir = tempDir('replay-import-memory-');
    const file = join(dir, 'output.jsonl');
    const lines = await writeLargeOutputJsonl(file, 160 * 1024 * 1024);
    const reading = await peakMemoryOf('import', file, join(dir, 'root'));
    expect(reading).toMatchObject({ runs: lines, skipped: 0 });
    expect(reading.maxRssMiB).toBeLessThan(300);
  }, 120_000);
});
