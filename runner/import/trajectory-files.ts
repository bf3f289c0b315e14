// The trajectory files of a format, from the paths given: a file as it is, a folder searched (links not followed).
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

const MAX_DEPTH = 6;

export async function filesEndingIn(paths: string[], suffix: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number) => {
    if (depth > MAX_DEPTH) return;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory()) await walk(join(dir, entry.name), depth + 1);
      else if (entry.isFile() && entry.name.endsWith(suffix)) found.push(join(dir, entry.name));
    }
  };
  for (const path of paths) {
    if ((await stat(path).catch(() => null))?.isDirectory()) await walk(path, 0);
    else found.push(path);
  }
  return found;
}
