// Lock files are machine-written, often thousands of lines, and say nothing about how a bug was fixed:
// they are left out of the reference diff (and out of the file comparison) so the judge's budget goes to code.
import { joinDiff, parseDiff } from '#shared/diff.ts';

const LOCK_FILE_NAMES = new Set([
  // JavaScript
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'shrinkwrap.yaml',
  'bun.lock',
  'bun.lockb',
  'deno.lock',
  // Rust, Go
  'Cargo.lock',
  'go.sum',
  'go.work.sum',
  // Python
  'poetry.lock',
  'Pipfile.lock',
  'pdm.lock',
  'uv.lock',
  // Ruby, PHP, Elixir, Dart, Swift/Objective-C
  'Gemfile.lock',
  'composer.lock',
  'mix.lock',
  'pubspec.lock',
  'Podfile.lock',
  'Package.resolved',
  // .NET (NuGet), JVM, Nix, Terraform, R
  'packages.lock.json',
  'paket.lock',
  'project.assets.json',
  'gradle.lockfile',
  'flake.lock',
  '.terraform.lock.hcl',
  'renv.lock',
]);

export function isLockFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return LOCK_FILE_NAMES.has(name) || name.endsWith('.gradle.lockfile');
}

/** The diff without its lock files, and the paths that were left out. */
export function omitLockFiles(diff: string): { diff: string; omitted: string[] } {
  const parsed = parseDiff(diff);
  const kept = parsed.files.filter((f) => !isLockFile(f.newPath ?? f.oldPath ?? ''));
  if (kept.length === parsed.files.length) return { diff, omitted: [] };
  const omitted = parsed.files.filter((f) => !kept.includes(f)).map((f) => (f.newPath ?? f.oldPath)!);
  return { diff: joinDiff(parsed, kept), omitted };
}
