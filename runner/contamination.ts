// Contamination scan (docs/contract.md §7), the second line of defence after the harness's sandbox. Every absolute path
// a tool call shows (its command, its path, its output) is classified against a table of roots, and the
// DEEPEST matching root decides: this run's own folder and workspace inside a forbidden root are allowed, a
// forbidden root inside a system path (/tmp/runs) still forbids, a traceback through site-packages inside
// a forbidden harness folder is not contamination. On a tie, forbidding wins. Paths are compared by whole
// components, so `/runs/a-1` never matches `/runs/a-10`; relative paths are never contamination (they
// resolve inside the workspace, where the agent works).
import { posix } from 'node:path';
import type { ToolCallEvent, TrajectoryEvent } from '#schema/run-folder.ts';

export interface ContaminationEntry {
  step: number;
  path: string;
  reason: string;
}

export interface ScanContext {
  /** The folder given to `sync` (for `run`, the run folder's parent). */
  runsRoot: string;
  /** This run's own folder (inside the runs root). */
  runFolder: string;
  /** The run's snapshot (`workspace` of result.json): never forbidden. */
  workspace?: string;
  /** `--forbid` roots: the harness folder, clones of the real repositories. */
  forbid: string[];
}

type RootSource = 'runs-root' | 'run-folder' | 'workspace' | 'forbid' | 'system';

export interface ContaminationRule {
  id: string;
  root: RootSource;
  /** `itself`: the root exactly (a listing); `inside`: strictly below it; `at-or-inside`: either. */
  match: 'itself' | 'inside' | 'at-or-inside';
  decides: 'forbidden' | 'allowed';
  reason?: string;
}

export const CONTAMINATION_RULES: readonly ContaminationRule[] = [
  {
    id: 'runs-root-listing',
    root: 'runs-root',
    match: 'itself',
    decides: 'forbidden',
    reason: 'the runs root itself: a listing of every run',
  },
  {
    id: 'other-run',
    root: 'runs-root',
    match: 'inside',
    decides: 'forbidden',
    reason: "inside the runs root, outside this run's own folder",
  },
  {
    id: 'forbidden-root',
    root: 'forbid',
    match: 'at-or-inside',
    decides: 'forbidden',
    reason: 'at or under a forbidden root',
  },
  { id: 'own-run-folder', root: 'run-folder', match: 'at-or-inside', decides: 'allowed' },
  { id: 'own-workspace', root: 'workspace', match: 'at-or-inside', decides: 'allowed' },
  { id: 'system-or-toolchain', root: 'system', match: 'at-or-inside', decides: 'allowed' },
];

/** System and toolchain locations: reading them is normal work (compilers, interpreters, tracebacks). */
export const SYSTEM_ROOTS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib64',
  '/etc',
  '/opt/homebrew',
  '/tmp',
  '/private/tmp',
  '/var/folders',
  '/private/var/folders',
  '/System',
  '/Library',
  '/dev',
  '/proc',
];
/** A folder of this name anywhere is a toolchain's: its path up to that component counts as a system root. */
export const TOOLCHAIN_FOLDERS: readonly string[] = [
  'site-packages',
  'dist-packages',
  'node_modules',
  '.nuget',
  '.dotnet',
  '.cargo',
  '.rustup',
  '.venv',
];

const components = (path: string) => posix.normalize(path).split('/').filter(Boolean);

function toolchainRoots(path: string): string[] {
  const parts = components(path);
  return parts.flatMap((part, i) => (TOOLCHAIN_FOLDERS.includes(part) ? ['/' + parts.slice(0, i + 1).join('/')] : []));
}

/** Depth of `root` when `path` is at or inside it (by whole components), else -1; `exact` tells which. */
function containment(path: string[], root: string[]): { depth: number; exact: boolean } {
  if (root.length > path.length || root.some((part, i) => part !== path[i])) return { depth: -1, exact: false };
  return { depth: root.length, exact: root.length === path.length };
}

/** The rule that decides for one absolute path, or null when no rule matches (not contamination). */
export function classifyPath(path: string, context: ScanContext): ContaminationRule | null {
  if (!path.startsWith('/')) return null;
  const target = components(path);
  const roots: Record<RootSource, string[]> = {
    'runs-root': [context.runsRoot],
    'run-folder': [context.runFolder],
    workspace: context.workspace ? [context.workspace] : [],
    forbid: context.forbid,
    system: [...SYSTEM_ROOTS, ...toolchainRoots(path)],
  };
  let best: { rule: ContaminationRule; depth: number } | null = null;
  for (const rule of CONTAMINATION_RULES) {
    for (const root of roots[rule.root]) {
      const { depth, exact } = containment(target, components(root));
      if (depth < 0 || (rule.match === 'itself' && !exact) || (rule.match === 'inside' && exact)) continue;
      const deeper =
        !best ||
        depth > best.depth ||
        (depth === best.depth && rule.decides === 'forbidden' && best.rule.decides === 'allowed');
      if (deeper) best = { rule, depth };
    }
  }
  return best?.rule ?? null;
}

/** The longest path read out of free text (PATH_MAX on Linux); a longer run of path characters is cut there. */
export const PATH_TOKEN_MAX = 4096;

// An absolute path inside free text: starts after a delimiter, ends at whitespace, a control character (a
// terminal's colour codes), quotes, brackets, shell operators or `:` (so `/src/a.cs:12:5` and `PATH=/a:/b` give the
// paths alone).
const PATH_IN_TEXT = new RegExp(
  `(?:^|[\\s\\u0000-\\u001f\\u007f-\\u009f"'\`=(<>|&;,:[{])(\\/[^\\s\\u0000-\\u001f\\u007f-\\u009f"'\`<>|&;,:()[\\]{}]{0,${PATH_TOKEN_MAX - 1}})`,
  'g',
);
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/gu;

/** A path as an entry records it: a control character in a file name written as its \uXXXX escape. */
const printable = (path: string) => path.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A sentence may end right after a path: its full stops are not part of it (the first character stays). */
function withoutFullStops(path: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === '.') end--;
  return path.slice(0, end);
}

export function pathsIn(text: string): string[] {
  return [...text.matchAll(PATH_IN_TEXT)].map((m) => withoutFullStops(m[1]!));
}

const MAX_ENTRIES = 1000;

/** One entry per offending (step, path seen) of every tool call; never the output itself. */
export function scanContamination(events: TrajectoryEvent[], context: ScanContext): ContaminationEntry[] {
  const found = new Map<string, ContaminationEntry>();
  for (const event of events) {
    if (event.type !== 'tool-call') continue;
    for (const path of pathsSeen(event)) {
      const rule = classifyPath(path, context);
      const key = `${event.step}\u0000${path}`;
      if (rule?.decides === 'forbidden' && !found.has(key) && found.size < MAX_ENTRIES)
        found.set(key, { step: event.step, path: printable(path).slice(0, 2000), reason: rule.reason! });
    }
  }
  return [...found.values()];
}

function pathsSeen(call: ToolCallEvent): string[] {
  return [
    ...(call.path?.startsWith('/') ? [call.path] : []),
    ...pathsIn(call.command ?? ''),
    ...pathsIn(call.output ?? ''),
  ];
}
