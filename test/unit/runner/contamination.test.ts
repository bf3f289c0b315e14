// The contamination scan (docs/contract.md §7): one test per rule of CONTAMINATION_RULES, and the look-alike paths
// that must not match.
import { describe, expect, it } from '@jest/globals';
import {
  classifyPath,
  CONTAMINATION_RULES,
  PATH_TOKEN_MAX,
  pathsIn,
  scanContamination,
  type ScanContext,
} from '#runner/contamination.ts';
import type { TrajectoryEvent } from '#schema/run-folder.ts';
import { runnerRowSchema } from '#schema/run.ts';
import { runnerRow } from '../../helpers/deliveries.ts';

const context: ScanContext = {
  runsRoot: '/runs',
  runFolder: '/runs/a-1',
  workspace: '/work/snapshots/a-1',
  forbid: ['/Users/me/harness', '/tmp/clones/widgets'],
};
const ruleOf = (path: string, ctx: ScanContext = context) => classifyPath(path, ctx)?.id ?? null;
const bash = (step: number, command: string, output?: string): TrajectoryEvent => ({
  type: 'tool-call',
  step,
  tool: 'bash',
  command,
  ...(output ? { output } : {}),
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: '2026-01-01T00:00:01.000Z',
});

describe('contamination rules', () => {
  it('has a test below for every rule', () => {
    expect(CONTAMINATION_RULES.map((r) => r.id)).toEqual([
      'runs-root-listing',
      'other-run',
      'forbidden-root',
      'own-run-folder',
      'own-workspace',
      'system-or-toolchain',
    ]);
  });

  it('runs-root-listing: the runs root itself is a listing of every run', () => {
    expect(ruleOf('/runs')).toBe('runs-root-listing');
    expect(ruleOf('/runs/')).toBe('runs-root-listing');
    expect(ruleOf('/runs/a-1/..')).toBe('runs-root-listing');
  });

  it("other-run: anything in the runs root outside this run's folder", () => {
    expect(ruleOf('/runs/a-2/candidate.diff')).toBe('other-run');
    expect(ruleOf('/runs/.replay-outbox/ledger.jsonl')).toBe('other-run');
  });

  it('forbidden-root: a --forbid root, itself or anything in it', () => {
    expect(ruleOf('/Users/me/harness')).toBe('forbidden-root');
    expect(ruleOf('/Users/me/harness/prompts/system.md')).toBe('forbidden-root');
  });

  it("own-run-folder: this run's own folder is allowed", () => {
    expect(ruleOf('/runs/a-1')).toBe('own-run-folder');
    expect(ruleOf('/runs/a-1/trajectory.jsonl')).toBe('own-run-folder');
  });

  it('own-workspace: the workspace is allowed even inside a forbidden root', () => {
    const inside = { ...context, workspace: '/Users/me/harness/workspaces/a-1' };
    expect(ruleOf('/Users/me/harness/workspaces/a-1/src/x.cs', inside)).toBe('own-workspace');
    expect(ruleOf('/Users/me/harness/workspaces/a-2/src/x.cs', inside)).toBe('forbidden-root');
  });

  it('system-or-toolchain: system paths and toolchain folders are allowed, but a forbidden root under them still forbids', () => {
    expect(ruleOf('/usr/lib/python3.12/json/decoder.py')).toBe('system-or-toolchain');
    expect(ruleOf('/tmp/build.log')).toBe('system-or-toolchain');
    expect(ruleOf('/Users/me/harness/.venv/lib/python3.12/site-packages/requests/api.py')).toBe('system-or-toolchain');
    expect(ruleOf('/tmp/clones/widgets/src/Widget.cs')).toBe('forbidden-root');
    expect(ruleOf('/tmp/clones/widgets')).toBe('forbidden-root');
    const runsUnderTmp = { ...context, runsRoot: '/tmp/runs', runFolder: '/tmp/runs/a-1' };
    expect(ruleOf('/tmp/runs/a-2/result.json', runsUnderTmp)).toBe('other-run');
  });
});

describe('look-alike paths that must not match', () => {
  it('/runs/a-10 is another run, not this run a-1 (and the other way round)', () => {
    expect(ruleOf('/runs/a-10/result.json')).toBe('other-run');
    expect(ruleOf('/runs/a-1/result.json', { ...context, runFolder: '/runs/a-10' })).toBe('other-run');
  });

  it('a path that only shares a prefix string with a root is not in it', () => {
    expect(ruleOf('/runs-archive/a-2/result.json')).toBeNull();
    expect(ruleOf('/Users/me/harness-notes.md')).toBeNull();
    expect(ruleOf('/tmp/clones/widgets-fork/x')).toBe('system-or-toolchain');
  });

  it('relative paths are never contamination', () => {
    expect(ruleOf('runs/a-2/result.json')).toBeNull();
    expect(ruleOf('../a-2/result.json')).toBeNull();
    expect(scanContamination([bash(1, 'cat ../a-2/result.json runs/a-2/x')], context)).toEqual([]);
  });
});

describe('scanning tool calls', () => {
  it('finds paths in commands, path fields and output, and records the path seen and its step, never the output', () => {
    const events: TrajectoryEvent[] = [
      bash(1, 'ls /runs', 'a-1\na-2'),
      bash(2, 'grep -r Resize src', 'Binary file matches /Users/me/harness/cache.bin.'),
      {
        type: 'tool-call',
        step: 3,
        tool: 'read',
        path: '/runs/a-2/candidate.diff',
        startedAt: '2026-01-01T00:00:00.000Z',
        endedAt: '2026-01-01T00:00:01.000Z',
      },
      bash(3, 'cat "/runs/a-2/candidate.diff"'),
      bash(4, 'PATH=/usr/bin:/runs/a-2/bin make', 'error at /work/snapshots/a-1/src/x.c:12:5'),
    ];
    expect(scanContamination(events, context)).toEqual([
      { step: 1, path: '/runs', reason: 'the runs root itself: a listing of every run' },
      { step: 2, path: '/Users/me/harness/cache.bin', reason: 'at or under a forbidden root' },
      { step: 3, path: '/runs/a-2/candidate.diff', reason: "inside the runs root, outside this run's own folder" },
      { step: 4, path: '/runs/a-2/bin', reason: "inside the runs root, outside this run's own folder" },
    ]);
  });

  it('reads absolute paths out of free text', () => {
    expect(pathsIn('cd /a/b && cat "/c d" \'/e\' x=/f (/g) /h:12:5 end /i.')).toEqual([
      '/a/b',
      '/c',
      '/e',
      '/f',
      '/g',
      '/h',
      '/i',
    ]);
    expect(pathsIn('no/absolute here')).toEqual([]);
  });

  it("drops a sentence's trailing dots in one pass, however many there are", () => {
    // A backtracking pattern took seconds for 80,000 dots and minutes for this many.
    const dots = '.'.repeat(300_000);
    expect(pathsIn(`see /a${dots}`)).toEqual(['/a']);
    expect(pathsIn(`/${dots}x`)).toEqual(['/']);
    expect(pathsIn(`/b${dots}x /c`)).toEqual(['/b', '/c']);
    expect(pathsIn('/.. and /...')).toEqual(['/', '/']);
  });

  it('reads at most PATH_TOKEN_MAX characters of one path', () => {
    const long = `/${'a'.repeat(10_000)}`;
    expect(pathsIn(`cat ${long} /b`)).toEqual([long.slice(0, PATH_TOKEN_MAX), '/b']);
  });
});

describe('entries a delivery can carry', () => {
  it('end a path at a control character and record a file name with one escaped, so ingest never refuses the run', () => {
    const call = {
      ...bash(4, 'cat notes', '\u001b[1msee\u001b[0m /runs/a-2/candidate.diff\u001b[0m'),
      path: '/runs/a-3/odd\u0007name',
    } as TrajectoryEvent;
    const entries = scanContamination([call], context);
    expect(entries.map((e) => e.path).sort()).toEqual(['/runs/a-2/candidate.diff', '/runs/a-3/odd\\u0007name']);
    expect(runnerRowSchema.safeParse(runnerRow({ contamination: entries })).success).toBe(true);
  });
});
