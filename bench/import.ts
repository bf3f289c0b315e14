// `npm run bench:import`: replay-push import throughput per format, in runs per second: 500 runs of each format,
// made from the real fixtures (test/fixtures/import/) with 500 instance ids, mapped to run folders and queued in
// the outbox (signed bodies, fsynced, as `import` queues them before it sends). The floor, in the same run, copies
// the same bytes: every input file read, and every file the import wrote (run folders, outbox) written again
// under a fresh folder, the outbox's files fsynced as the outbox does. Trials alternate; medians and the ratio
// floor time / import time are printed (the goal: ≥ 0.5). Options: --runs N (500) --trials T (5)
import { open, readdir, readFile, writeFile, mkdir, mkdtemp, rm, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from '#runner/derive.ts';
import { importToFolders } from '#runner/import/import-command.ts';
import { IMPORT_FORMATS, type ImportFormat } from '#runner/import/imported-run.ts';
import { Outbox } from '#runner/outbox.ts';
import { queueRunFolders } from '#runner/sync.ts';
import { zipEntries } from '#runner/import/zip-entries.ts';
import { zipArchive, type ZipSpec } from '../test/helpers/zip-writer.ts';

const { values: args } = parseArgs({
  options: { runs: { type: 'string', default: '500' }, trials: { type: 'string', default: '5' } },
});
const RUNS = Number(args.runs);
const TRIALS = Number(args.trials);
const FIXTURES = join(import.meta.dirname, '../test/fixtures/import');
const HOST = 'bench-import-1';
const id = (n: number) => `bench__repo-${n + 1}`;
const fixture = (path: string) => readFile(join(FIXTURES, path), 'utf8');

/** RUNS runs of the format under `dir`, each a real fixture run under its own instance id; the paths to import. */
async function writeInput(format: ImportFormat, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  switch (format) {
    case 'swe-bench': {
      const preds = JSON.parse(await fixture('swe-bench/preds.json')) as Record<string, Record<string, unknown>>;
      const [[sourceId, prediction]] = Object.entries(preds) as [[string, Record<string, unknown>]];
      const report = await fixture(`swe-bench/logs/${sourceId}/report.json`);
      const out: Record<string, unknown> = {};
      for (let n = 0; n < RUNS; n++) {
        out[id(n)] = { ...prediction, instance_id: id(n) };
        await mkdir(join(dir, 'logs', id(n)), { recursive: true });
        await writeFile(join(dir, 'logs', id(n), 'report.json'), report);
      }
      await writeFile(join(dir, 'preds.json'), JSON.stringify(out));
      return [join(dir, 'preds.json'), join(dir, 'logs')];
    }
    case 'openhands': {
      const lines = (await fixture('openhands/output.jsonl')).trim().split('\n');
      const file = await open(join(dir, 'output.jsonl'), 'w');
      for (let n = 0; n < RUNS; n++) {
        const line = JSON.parse(lines[n % lines.length]!) as Record<string, unknown>;
        await file.write(`${JSON.stringify({ ...line, instance_id: id(n) })}\n`);
      }
      await file.close();
      return [join(dir, 'output.jsonl')];
    }
    case 'swe-agent': {
      const traj = await fixture('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj');
      for (let n = 0; n < RUNS; n++) await writeFile(join(dir, `${id(n)}.traj`), traj);
      return [dir];
    }
    case 'inspect': {
      const entries: ZipSpec[] = [];
      for await (const entry of zipEntries(join(FIXTURES, 'inspect/log_read_sample.eval'), () => true)) {
        const data = await entry.read();
        if (!entry.name.startsWith('samples/')) entries.push({ name: entry.name, data });
        else
          for (let n = 0; n < RUNS; n++) {
            const sample = { ...(JSON.parse(data.toString('utf8')) as object), id: id(n) };
            entries.push({ name: `samples/${id(n)}_epoch_1.json`, data: Buffer.from(JSON.stringify(sample)) });
          }
      }
      await writeFile(join(dir, 'bench.eval'), zipArchive(entries));
      return [join(dir, 'bench.eval')];
    }
    case 'harbor': {
      // One Terminal-Bench trial folder per run, each its own task, with the run's metadata above them.
      const run = 'terminal-bench/tb_rc2_g5_2';
      const trialPath = 'jupyter-notebook-server/jupyter-notebook-server.1-of-1.tb_rc2_g5_2/results.json';
      const trial = JSON.parse(await fixture(`${run}/${trialPath}`)) as Record<string, unknown>;
      await writeFile(join(dir, 'run_metadata.json'), await fixture(`${run}/run_metadata.json`));
      for (let n = 0; n < RUNS; n++) {
        const trialDir = join(dir, id(n), `${id(n)}.1-of-1`);
        await mkdir(trialDir, { recursive: true });
        const copy = { ...trial, id: `bench-${n}`, task_id: id(n), trial_name: `${id(n)}.1-of-1` };
        await writeFile(join(trialDir, 'results.json'), JSON.stringify(copy, null, 4));
      }
      return [dir];
    }
    case 'mini-swe-agent': {
      const traj = JSON.parse(await fixture('mini-swe-agent/django__django-16255.traj.json')) as object;
      for (let n = 0; n < RUNS; n++)
        await writeFile(join(dir, `${id(n)}.traj.json`), JSON.stringify({ ...traj, instance_id: id(n) }));
      return [dir];
    }
  }
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** The import as `replay-push import` does it before sending: run folders, then the outbox. */
async function importTrial(format: ImportFormat, paths: string[], root: string): Promise<number> {
  const started = performance.now();
  const imported = await importToFolders(format, paths, root, { model: 'bench-model', harnessVersion: 'bench-1' });
  const outbox = await Outbox.open(join(root, '.replay-outbox'));
  try {
    const queued = await queueRunFolders(outbox, imported.folders, root, { host: HOST });
    if (imported.folders.length !== RUNS || queued.invalid.length || imported.skipped.length)
      throw new Error(`${format}: ${imported.folders.length} of ${RUNS} runs imported`);
  } finally {
    await outbox.close();
  }
  return performance.now() - started;
}

/** The floor: the same bytes read, and written again (the outbox's files fsynced as the outbox does). */
async function copyTrial(inputs: string[], outputs: { from: string; to: string; durable: boolean }[]): Promise<number> {
  const started = performance.now();
  for (const input of inputs) await readFile(input);
  for (const { from, to, durable } of outputs) {
    await mkdir(dirname(to), { recursive: true });
    if (!durable) await copyFile(from, to);
    else {
      const handle = await open(to, 'w');
      await handle.writeFile(await readFile(from));
      await handle.sync();
      await handle.close();
    }
  }
  return performance.now() - started;
}

const scratch = await mkdtemp(join(tmpdir(), 'bench-import-'));
try {
  console.log(`bench:import — ${RUNS} runs per format, ${TRIALS} trials each, medians`);
  for (const format of IMPORT_FORMATS) {
    const input = join(scratch, format, 'input');
    const paths = await writeInput(format, input);
    const inputs = await filesUnder(input);
    const times = { import: [] as number[], floor: [] as number[] };
    for (let trial = 0; trial < TRIALS; trial++) {
      const root = join(scratch, format, `import-${trial}`);
      times.import.push(await importTrial(format, paths, root));
      const written = await filesUnder(root);
      const copy = join(scratch, format, `copy-${trial}`);
      const outputs = written.map((from) => ({
        from,
        to: join(copy, relative(root, from)),
        durable: from.includes('.replay-outbox'),
      }));
      times.floor.push(await copyTrial(inputs, outputs));
      await rm(root, { recursive: true });
      await rm(copy, { recursive: true });
    }
    const importMs = median(times.import)!;
    const floorMs = median(times.floor)!;
    console.log(
      `${format.padEnd(15)} import ${importMs.toFixed(0)} ms (${((RUNS / importMs) * 1000).toFixed(0)} runs/s)` +
        `  floor ${floorMs.toFixed(0)} ms (${((RUNS / floorMs) * 1000).toFixed(0)} runs/s)` +
        `  ratio ${(floorMs / importMs).toFixed(2)}`,
    );
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
