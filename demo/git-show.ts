// Reading the public sources the demo data is built from, at pinned commits, out of local (bare) clones.
import { execFileSync } from 'node:child_process';

const git = (dir: string, args: string[]) =>
  execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });

/** What a file at a commit holds; a clone without it (the path absent, the blob not fetched) fails by name, or is null when optional. */
export function gitShow(dir: string, commit: string, path: string): string;
export function gitShow(dir: string, commit: string, path: string, options: { optional: true }): string | null;
export function gitShow(dir: string, commit: string, path: string, options?: { optional: true }): string | null {
  try {
    return git(dir, ['show', `${commit}:${path}`]);
  } catch {
    if (options?.optional) return null;
    throw new Error(`${dir} has no ${path} at commit ${commit}: is it a clone of the right repository?`);
  }
}

/** Every file path under a folder at a commit. */
export const gitTree = (dir: string, commit: string, folder: string): string[] =>
  git(dir, ['ls-tree', '-r', '--name-only', commit, '--', `${folder}/`])
    .split('\n')
    .filter(Boolean);
