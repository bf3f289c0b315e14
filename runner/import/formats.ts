// The formats `replay-push import` reads, and `auto`: each path's format told from its name and, for a JSON Lines
// file, from its first line (an OpenHands line has `history` or `test_result`; a prediction has `model_patch`); a
// folder holding Terminal-Bench or Harbor trials (results.json, result.json) is `harbor`.
import { open, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ImportedRun, ImportFormat, SkippedRun } from './imported-run.ts';
import { holdsTrials, importHarbor } from './harbor.ts';
import { importInspect } from './inspect.ts';
import { importMiniSweAgent } from './mini-swe-agent.ts';
import { importOpenHands } from './openhands.ts';
import { importSweAgent } from './swe-agent.ts';
import { importSweBench, type ImportContext } from './swe-bench.ts';
import { filesEndingIn } from './trajectory-files.ts';

type Importer = (paths: string[], context: ImportContext) => AsyncGenerator<ImportedRun | SkippedRun>;

const isFolder = async (path: string) => (await stat(path).catch(() => null))?.isDirectory() ?? false;

export const IMPORTERS: Record<ImportFormat, Importer> = {
  'swe-bench': async function* (paths, context) {
    const folders: string[] = [];
    const files: string[] = [];
    for (const path of paths) ((await isFolder(path)) ? folders : files).push(path);
    yield* importSweBench(files, folders, context);
  },
  'swe-agent': importSweAgent,
  'mini-swe-agent': importMiniSweAgent,
  inspect: importInspect,
  harbor: importHarbor,
  openhands: async function* (paths, context) {
    const files: string[] = [];
    for (const path of paths) files.push((await isFolder(path)) ? join(path, 'output.jsonl') : path);
    yield* importOpenHands(files, context);
  },
};

/** The first bytes of a file, enough to read the keys its first JSON line opens with. */
async function head(path: string, bytes = 64 * 1024): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** The format of one path, or null when nothing in it says. */
export async function detectFormat(path: string): Promise<ImportFormat | null> {
  if (await isFolder(path)) {
    if (await stat(join(path, 'output.jsonl')).catch(() => null)) return 'openhands';
    if (await holdsTrials(path)) return 'harbor';
    if ((await filesEndingIn([path], '.traj.json')).length) return 'mini-swe-agent';
    if ((await filesEndingIn([path], '.traj')).length) return 'swe-agent';
    if ((await filesEndingIn([path], '.eval')).length) return 'inspect';
    if ((await filesEndingIn([path], 'report.json')).length) return 'swe-bench';
    return null;
  }
  const name = basename(path);
  if (name === 'result.json' || name === 'results.json') return (await holdsTrials(dirname(path))) ? 'harbor' : null;
  if (name.endsWith('.traj.json')) return 'mini-swe-agent';
  if (name.endsWith('.traj')) return 'swe-agent';
  if (name.endsWith('.eval')) return 'inspect';
  if (!/\.jsonl?$/.test(name)) return null;
  const start = await head(path).catch(() => '');
  if (/"(history|test_result)"\s*:/.test(start)) return 'openhands';
  // Predictions are SWE-bench's format, whoever wrote them (mini-swe-agent's preds.json too).
  if (/"model_patch"\s*:/.test(start)) return 'swe-bench';
  return null;
}
