// `npm run bench:import-memory`: the peak memory of `replay-push import openhands` on a large output.jsonl
// (issue bound: a 2 GB file within 300 MB). The file is the real fixture line with its history repeated to 1 MiB
// a line, each line its own instance (test/helpers/large-output-jsonl.ts), written to a temporary folder. In fresh
// Node processes: Node alone, the same lines streamed and parsed only (the floor), and the import, each line
// mapped and written as a run folder. Figure: each process's peak resident memory (maxRSS).
//   npm run bench:import-memory [-- --gib 2 --line-mib 1]
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { peakMemoryOf, writeLargeOutputJsonl } from '../test/helpers/large-output-jsonl.ts';

const { values } = parseArgs({
  options: { gib: { type: 'string', default: '2' }, 'line-mib': { type: 'string', default: '1' } },
});
const MIB = 1024 * 1024;
const BOUND_MIB = 300;
const scratch = await mkdtemp(join(tmpdir(), 'bench-import-memory-'));
try {
  const file = join(scratch, 'output.jsonl');
  const lines = await writeLargeOutputJsonl(file, Number(values.gib) * 1024 * MIB, Number(values['line-mib']) * MIB);
  const size = (await stat(file)).size;
  console.log(`bench:import-memory — output.jsonl of ${(size / MIB).toFixed(0)} MiB, ${lines} lines`);
  const none = await peakMemoryOf('none', file, join(scratch, 'none'));
  const read = await peakMemoryOf('read', file, join(scratch, 'read'));
  const imported = await peakMemoryOf('import', file, join(scratch, 'import'));
  for (const r of [none, read, imported])
    console.log(
      `${r.mode.padEnd(7)} peak RSS ${r.maxRssMiB.toFixed(0).padStart(4)} MiB  ${(r.ms / 1000).toFixed(1)} s  ${r.runs} runs`,
    );
  console.log(
    `import peak ${imported.maxRssMiB.toFixed(0)} MiB (bound ${BOUND_MIB}), ${(imported.maxRssMiB / read.maxRssMiB).toFixed(2)}× the streaming floor, ${imported.runs} of ${lines} runs`,
  );
  if (imported.maxRssMiB > BOUND_MIB || imported.runs !== lines) process.exitCode = 1;
} finally {
  await rm(scratch, { recursive: true, force: true });
}
