// Reading diffs for the judge: files split hunk-aware, lock files left out, budgets marked.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { cutToBudget, joinDiff, parseDiff, touchedPaths } from '#shared/diff.ts';
import { isLockFile, omitLockFiles } from '#core/reference/lock-files.ts';

const file = (path: string, body = '@@ -1 +1 @@\n-old\n+new') =>
  `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n${body}`;

describe('parsing a diff', () => {
  it('is not fooled by removed lines that look like file headers', () => {
    const sql = file('db/schema.sql', '@@ -1,3 +1,1 @@\n--- old comment\n-+++ b/fake.txt\n keep');
    expect(parseDiff(`${sql}\n${file('src/a.ts')}\n`).files.map((f) => f.newPath)).toEqual([
      'db/schema.sql',
      'src/a.ts',
    ]);
  });

  it('knows created, deleted and renamed files, and quoted names', () => {
    const diff = [
      'diff --git a/new.txt b/new.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/new.txt',
      '@@ -0,0 +1 @@',
      '+hi',
      'diff --git a/gone.txt b/gone.txt',
      'deleted file mode 100644',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      'diff --git a/old name.ts b/new name.ts',
      'similarity index 100%',
      'rename from old name.ts',
      'rename to new name.ts',
      'diff --git "a/caf\\303\\251.md" "b/caf\\303\\251.md"',
      'Binary files "a/caf\\303\\251.md" and "b/caf\\303\\251.md" differ',
      '',
    ].join('\n');
    expect(parseDiff(diff).files.map((f) => [f.oldPath, f.newPath])).toEqual([
      [null, 'new.txt'],
      ['gone.txt', null],
      ['old name.ts', 'new name.ts'],
      ['café.md', 'café.md'],
    ]);
    expect([...touchedPaths(diff)].sort()).toEqual(['café.md', 'gone.txt', 'new name.ts', 'new.txt', 'old name.ts']);
  });

  it('reads plain unified diffs without git headers', () => {
    const diff =
      '--- src/a.c\t2026-01-01 10:00:00\n+++ src/a.c\t2026-01-02 10:00:00\n@@ -1 +1 @@\n-x\n+y\n--- src/b.c\n+++ src/b.c\n@@ -1 +1 @@\n-x\n+y\n';
    expect([...touchedPaths(diff)]).toEqual(['src/a.c', 'src/b.c']);
  });

  it('rebuilds the exact text from its parts', () => {
    const line = fc.constantFrom(
      '+x',
      '-y',
      ' z',
      '--- a/f',
      '+++ b/f',
      'diff --git a/f b/f',
      '@@ -1,2 +1,2 @@',
      'From: someone',
      '',
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (lines) => {
        const text = lines.join('\n');
        const parsed = parseDiff(text);
        expect(joinDiff(parsed, parsed.files)).toBe(text);
      }),
    );
  });
});

describe('lock files', () => {
  it.each([
    'package-lock.json',
    'web/yarn.lock',
    'pnpm-lock.yaml',
    'Cargo.lock',
    'poetry.lock',
    'Pipfile.lock',
    'Gemfile.lock',
    'go.sum',
    'composer.lock',
    'src/App/packages.lock.json',
    'app/gradle.lockfile',
  ])('recognises %s', (path) => expect(isLockFile(path)).toBe(true));

  it.each(['package.json', 'Cargo.toml', 'go.mod', 'src/lock.ts', 'docs/yarn.lock.md'])('keeps %s', (path) =>
    expect(isLockFile(path)).toBe(false),
  );

  it('are left out of a diff, which says which', () => {
    const diff = [file('src/a.ts'), file('package-lock.json'), file('backend/go.sum'), file('README.md'), ''].join(
      '\n',
    );
    const { diff: kept, omitted } = omitLockFiles(diff);
    expect(omitted).toEqual(['package-lock.json', 'backend/go.sum']);
    expect(kept).toBe([file('src/a.ts'), file('README.md'), ''].join('\n'));
  });
});

describe('cutting to a budget', () => {
  it('keeps short text as it is', () => expect(cutToBudget('abc\n', 10, 'x')).toBe('abc\n'));

  it('cuts at a line end and says how much is missing', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const cut = cutToBudget(text, 50, 'reference fix');
    expect(cut.startsWith('line 0\nline 1\n')).toBe(true);
    expect(cut).toMatch(
      /\n\[\.\.\. reference fix cut here to fit the judge's budget: 49 of \d+ characters shown, 93 more lines not shown \.\.\.\]\n$/,
    );
  });
});
