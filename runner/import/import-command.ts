// `replay-push import <format> <path>…` (docs/runner.md, "Importing a harness's outputs"): each run of a harness's
// outputs becomes a `replay-run/1` run folder under the import root (`--into`), and the folders go out as `sync`
// sends them: the same outbox, signing, ledger and catch-up, so importing the same outputs twice sends nothing
// new. Runs are mapped and written one at a time, never all held. A run that cannot be mapped is named with the
// field it lacks and skipped (exit 2, as an unreadable run folder), never half sent.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UsageError, type CliSettings } from '../cli-arguments.ts';
import { EXIT, finish, type CliIo } from '../cli-output.ts';
import { Outbox } from '../outbox.ts';
import { Progress } from '../progress-bar.ts';
import { RunFolderError } from '../run-folder.ts';
import { deliveriesOf, prepareFolders, syncRunFolders } from '../sync.ts';
import { deliverySettings, outboxDir } from '../push-commands.ts';
import { detectFormat, IMPORTERS } from './formats.ts';
import {
  IMPORT_FORMATS,
  isSkipped,
  toRunFolder,
  writeRunFolder,
  type ImportFormat,
  type RunFolderFiles,
  type SkippedRun,
} from './imported-run.ts';
import { readDataset, type TaskFacts } from './swe-bench-tasks.ts';

export const DEFAULT_IMPORT_ROOT = 'replay-import';

const isFormat = (name: string): name is ImportFormat => (IMPORT_FORMATS as readonly string[]).includes(name);

/** The paths of each format: as named, or for `auto` as each path's own files say. */
async function formatsOf(format: string, paths: string[]): Promise<Map<ImportFormat, string[]>> {
  if (isFormat(format)) return new Map([[format, paths]]);
  if (format !== 'auto')
    throw new UsageError(`Unknown import format "${format}": one of ${IMPORT_FORMATS.join(', ')} or auto.`);
  const groups = new Map<ImportFormat, string[]>();
  for (const path of paths) {
    const found = await detectFormat(path);
    if (!found) throw new UsageError(`${path}: no importable format recognised; name the format instead of auto.`);
    groups.set(found, [...(groups.get(found) ?? []), path]);
  }
  return groups;
}

export interface ImportedFolders {
  folders: string[];
  /** Where each folder came from (file or file:line), for the dry run's rows. */
  sources: Map<string, string>;
  skipped: SkippedRun[];
  warnings: string[];
}

export interface ImportOptions {
  model?: string;
  harnessVersion?: string;
  dataset?: string;
}

/**
 * Maps every run of the paths to its run folder's files and hands each to `each`, one run at a time; a run that
 * cannot be mapped, or is the same run as one handed over before, is skipped with why.
 */
export async function mapImport(
  format: string,
  paths: string[],
  options: ImportOptions,
  each: (folder: RunFolderFiles, source: string) => Promise<void>,
): Promise<Pick<ImportedFolders, 'skipped' | 'warnings'>> {
  const out: Pick<ImportedFolders, 'skipped' | 'warnings'> = { skipped: [], warnings: [] };
  let dataset = new Map<string, TaskFacts>();
  if (options.dataset) {
    const read = await readDataset(resolve(options.dataset));
    dataset = read.tasks;
    out.warnings.push(...read.skipped);
  }
  const groups = await formatsOf(
    format,
    paths.map((p) => resolve(p)),
  );
  /** The source of each folder handed over, by the folder's name. */
  const sources = new Map<string, string>();
  for (const [name, group] of groups) {
    for await (const item of IMPORTERS[name](group, { dataset })) {
      const folder = isSkipped(item) ? item : toRunFolder(item, options);
      if (isSkipped(folder)) {
        out.skipped.push(folder);
        continue;
      }
      const first = sources.get(folder.name);
      if (first !== undefined) {
        out.skipped.push({
          source: item.source,
          field: 'id',
          reason: `the same run (${folder.id}, finished at the same time) as ${first}`,
        });
        continue;
      }
      await each(folder, item.source);
      sources.set(folder.name, item.source);
    }
  }
  return out;
}

/** Maps every run of the paths and writes its run folder under `root`, one run at a time. */
export async function importToFolders(
  format: string,
  paths: string[],
  root: string,
  options: ImportOptions,
): Promise<ImportedFolders> {
  const folders: string[] = [];
  const sources = new Map<string, string>();
  const mapped = await mapImport(format, paths, options, async (folder, source) => {
    const dir = await writeRunFolder(root, folder);
    folders.push(dir);
    sources.set(dir, source);
  });
  return { folders, sources, ...mapped };
}

const skippedError = (s: SkippedRun) => new RunFolderError(s.source, `skipped: ${s.field}: ${s.reason}.`);

export async function importCommand(
  targets: string[],
  settings: CliSettings,
  env: NodeJS.ProcessEnv,
  io: CliIo,
): Promise<number> {
  const [format, ...paths] = targets;
  if (!format || !paths.length)
    throw new UsageError(`Give a format (${IMPORT_FORMATS.join(', ')} or auto) and at least one path.`);
  // An imported run folder names no host: the rows are this host's, and its key signs them.
  if (!settings.host) throw new UsageError('Which host do the imported runs belong to? Give --host (or REPLAY_HOST).');
  const options = { model: settings.model, harnessVersion: settings.harnessVersion, dataset: settings.dataset };
  if (settings.dryRun) {
    // A dry run writes its folders where nothing else looks, and removes them.
    const scratch = await mkdtemp(join(tmpdir(), 'replay-import-'));
    try {
      const imported = await importToFolders(format, paths, scratch, options);
      return await listRuns(imported, scratch, settings, io);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  const root = resolve(settings.into ?? DEFAULT_IMPORT_ROOT);
  const imported = await importToFolders(format, paths, root, options);
  const progress = new Progress(io, !settings.json);
  const delivery = deliverySettings(settings, env, progress);
  const outbox = await Outbox.open(outboxDir(settings, root));
  try {
    const report = await syncRunFolders(outbox, imported.folders, root, delivery);
    report.invalid.unshift(...imported.skipped.map(skippedError));
    report.warnings.unshift(...imported.warnings);
    return finish(report, outbox.dir, settings.json, io, progress);
  } finally {
    await outbox.close();
  }
}

/** `--dry-run`: one row per run that would be sent, and each skipped run with the field it lacks. */
async function listRuns(imported: ImportedFolders, root: string, settings: CliSettings, io: CliIo): Promise<number> {
  const prepared = await prepareFolders(imported.folders, { runsRoot: root, host: settings.host });
  for (const warning of [...imported.warnings, ...prepared.warnings]) io.err(`replay-push: warning: ${warning}`);
  for (const skipped of imported.skipped) io.err(`replay-push: ${skippedError(skipped).message}`);
  for (const invalid of prepared.invalid) io.err(`replay-push: ${invalid.message}`);
  for (const run of prepared.runs) {
    const source = imported.sources.get(run.folder) ?? run.folder;
    const kinds = deliveriesOf(run).map((d) => d.kind);
    const { row } = run;
    if (settings.json) io.out(JSON.stringify({ source, id: run.id, row, deliveries: kinds }));
    else
      io.out(
        `would send ${run.id} from ${source}: ${row.outcome}, ${row.metricsSource}` +
          `${run.hiddenTest ? `, hidden tests ${run.hiddenTest.status}` : ''}${run.task ? ', issue record' : ''}`,
      );
  }
  return imported.skipped.length || prepared.invalid.length ? EXIT.usage : EXIT.delivered;
}
