// Every relative link of README.md and docs/ leads somewhere: the file or folder it names exists, and the
// section it names (`#anchor`) is a heading of that file, by GitHub's rule for heading anchors.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from './paths.ts';

const DOCS = [
  join(PROJECT_ROOT, 'README.md'),
  ...readdirSync(join(PROJECT_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(PROJECT_ROOT, 'docs', name)),
];

/** Markdown without code: a link in a code block or a code span is text, not a link. */
const withoutCode = (markdown: string) =>
  markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchor for each heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

interface Link {
  from: string;
  target: string;
}

function relativeLinks(file: string): Link[] {
  const from = relative(PROJECT_ROOT, file);
  return [...withoutCode(readFileSync(file, 'utf8')).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map(([, target]) => target!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => ({ from, target }));
}

/** Why a link does not resolve, or undefined when it does. */
function brokenBecause({ from, target }: Link): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const file = path ? resolve(dirname(join(PROJECT_ROOT, from)), decodeURIComponent(path)) : join(PROJECT_ROOT, from);
  if (!existsSync(file)) return `no file ${relative(PROJECT_ROOT, file)}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return `#${anchor} on a file that has no headings`;
  return anchorsOf(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))
    ? undefined
    : `no heading #${anchor} in ${relative(PROJECT_ROOT, file)}`;
}

describe('relative links in README.md and docs/', () => {
  const links = DOCS.flatMap(relativeLinks);

  it('are found, section links among them', () => {
    expect(links.length).toBeGreaterThan(20);
    expect(links.some((l) => l.target.includes('#'))).toBe(true);
  });

  it('each name a file that exists and, when they name a section, a heading of that file', () => {
    const broken = links.flatMap((link) => {
      const why = brokenBecause(link);
      return why ? [`${link.from}: (${link.target}) ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });
});

describe("GitHub's heading anchors", () => {
  it('drop punctuation and code marks, join words with hyphens, and number repeats', () => {
    expect([...anchorsOf('## 10. Contracts that other programs rely on\n### `/budget`\n## Notes\n## Notes\n')]).toEqual(
      ['10-contracts-that-other-programs-rely-on', 'budget', 'notes', 'notes-1'],
    );
  });

  it('are not made from a heading inside a code block', () => {
    expect([...anchorsOf('```sh\n# not a heading\n```\n# Real\n')]).toEqual(['real']);
  });
});
