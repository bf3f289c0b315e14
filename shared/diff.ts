// Unified diffs as the judge reads them: split per file (hunk-aware, so a removed line that starts with
// "-- " is never mistaken for a file header), the paths each file touches, and a cut to a size budget
// that says visibly what was left out.

export interface DiffFile {
  /** null for a created file. */
  oldPath: string | null;
  /** null for a deleted file. */
  newPath: string | null;
  /** The file's part of the diff, headers included, exactly as it appeared. */
  text: string;
}

export interface ParsedDiff {
  /** Anything before the first file (a commit message, say); null when the diff starts with a file. */
  preamble: string | null;
  files: DiffFile[];
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export function parseDiff(diff: string): ParsedDiff {
  const lines = diff.split('\n');
  const found: {
    start: number;
    oldPath: string | null;
    newPath: string | null;
    fromGit: boolean;
    sawHeaders: boolean;
  }[] = [];
  let oldLeft = 0;
  let newLeft = 0;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (oldLeft > 0 || newLeft > 0) {
      const tag = line[0];
      if (tag === ' ' || line === '') {
        oldLeft--;
        newLeft--;
        continue;
      }
      if (tag === '-' || tag === '+') {
        if (tag === '-') oldLeft--;
        else newLeft--;
        continue;
      }
      if (tag === '\\') continue;
      // A hunk shorter than its header claimed: read this line as a header line.
      oldLeft = newLeft = 0;
    }
    const file = found[found.length - 1];
    if (line.startsWith('diff --git ')) {
      found.push({ start: i, ...gitHeaderPaths(line.slice('diff --git '.length)), fromGit: true, sawHeaders: false });
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk && file) {
      oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
      continue;
    }
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      const paths = {
        oldPath: headerPath(line.slice(4), 'a/'),
        newPath: headerPath(lines[i + 1]!.slice(4), 'b/'),
        sawHeaders: true,
      };
      // Plain (non-git) diffs have no "diff --git" line: the "---" header opens the file.
      if (file && file.fromGit && !file.sawHeaders) Object.assign(file, paths);
      else found.push({ start: i, ...paths, fromGit: false });
      i++;
      continue;
    }
    if (!file) continue;
    const rename = /^(?:rename|copy) (from|to) (.*)$/.exec(line);
    if (rename?.[1] === 'from') file.oldPath = unquote(rename[2]!);
    else if (rename?.[1] === 'to') file.newPath = unquote(rename[2]!);
    else if (line.startsWith('new file mode')) file.oldPath = null;
    else if (line.startsWith('deleted file mode')) file.newPath = null;
  }

  return {
    preamble: found[0]?.start === 0 ? null : lines.slice(0, found[0]?.start ?? lines.length).join('\n'),
    files: found.map((f, i) => ({
      oldPath: f.oldPath,
      newPath: f.newPath,
      text: lines.slice(f.start, found[i + 1]?.start ?? lines.length).join('\n'),
    })),
  };
}

const NO_NEWLINE = '\\ No newline at end of file';

/**
 * The diff rebuilt from what parses as one: per file its `---`/`+++` header, and per hunk its
 * `@@ -a,b +c,d @@` line (without the section text after it) and the `+`, `-` and context lines its counts
 * cover. A preamble, `index` and mode lines, section text and lines outside a hunk are dropped, so what
 * the judge reads is exactly what the screen read (docs/contract.md §5).
 */
export function rebuiltDiff(diff: string): string {
  const out: string[] = [];
  for (const file of parseDiff(diff).files) {
    out.push(`--- ${file.oldPath === null ? '/dev/null' : `a/${printablePath(file.oldPath)}`}`);
    out.push(`+++ ${file.newPath === null ? '/dev/null' : `b/${printablePath(file.newPath)}`}`);
    let oldLeft = 0;
    let newLeft = 0;
    for (const line of file.text.split('\n')) {
      if (oldLeft > 0 || newLeft > 0) {
        const tag = line[0];
        if (tag === ' ' || line === '') {
          out.push(line === '' ? ' ' : line);
          oldLeft--;
          newLeft--;
          continue;
        }
        if (tag === '-' || tag === '+') {
          out.push(line);
          if (tag === '-') oldLeft--;
          else newLeft--;
          continue;
        }
        if (line === NO_NEWLINE) {
          out.push(line);
          continue;
        }
        oldLeft = newLeft = 0;
      }
      const ranges = HUNK.exec(line);
      if (!ranges) continue;
      const [, oldStart, oldCount, newStart, newCount] = ranges;
      oldLeft = oldCount === undefined ? 1 : Number(oldCount);
      newLeft = newCount === undefined ? 1 : Number(newCount);
      out.push(`@@ -${oldStart},${oldLeft} +${newStart},${newLeft} @@`);
    }
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

/** A path on one line: control characters (a quoted name may hold a line break) shown as "?". */
const printablePath = (path: string) => path.replace(/[\p{Cc}]/gu, '?');

/** Every path a diff creates, changes, deletes or renames (both names of a rename). */
export function touchedPaths(diff: string): Set<string> {
  const paths = new Set<string>();
  for (const f of parseDiff(diff).files) {
    if (f.oldPath) paths.add(f.oldPath);
    if (f.newPath) paths.add(f.newPath);
  }
  return paths;
}

/** Rebuilds a diff from some of its files. */
export function joinDiff(parsed: ParsedDiff, files: DiffFile[]): string {
  const parts = files.map((f) => f.text);
  return (parsed.preamble === null ? parts : [parsed.preamble, ...parts]).join('\n');
}

/**
 * Cuts text to at most `maxChars` at a line end and says so in a marker line, so the judge knows it sees
 * part of the change and does not take the missing part as absent.
 */
export function cutToBudget(text: string, maxChars: number, what: string): string {
  if (text.length <= maxChars) return text;
  const lineEnd = text.lastIndexOf('\n', maxChars);
  const kept = text.slice(0, lineEnd > 0 ? lineEnd + 1 : maxChars);
  const omittedLines = text
    .slice(kept.length)
    .split('\n')
    .filter((l) => l !== '').length;
  return (
    `${kept}[... ${what} cut here to fit the judge's budget: ${kept.length} ` +
    `of ${text.length} characters shown, ${omittedLines} more lines not shown ...]\n`
  );
}

/** `a/x b/x` → x; quoted names are unquoted. An ambiguous header (names with " b/") is split in the middle. */
function gitHeaderPaths(rest: string): { oldPath: string | null; newPath: string | null } {
  const quoted = /^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/.exec(rest);
  if (quoted)
    return { oldPath: stripPrefix(unquote(quoted[1]!), 'a/'), newPath: stripPrefix(unquote(quoted[2]!), 'b/') };
  // Unquoted names with spaces: for the same name on both sides the header is symmetric around its middle.
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === ' ' && rest.slice(2, half) === rest.slice(half + 3)) {
    const name = rest.slice(2, half);
    return { oldPath: name, newPath: name };
  }
  const split = rest.indexOf(' b/');
  return split > 0
    ? { oldPath: stripPrefix(rest.slice(0, split), 'a/'), newPath: rest.slice(split + 3) }
    : { oldPath: null, newPath: null };
}

function headerPath(value: string, prefix: string): string | null {
  // Non-git diffs append a tab and a timestamp to the name.
  const name = unquote(value.replace(/\t.*$/, '').trimEnd());
  return name === '/dev/null' ? null : stripPrefix(name, prefix);
}

const stripPrefix = (path: string, prefix: string) => (path.startsWith(prefix) ? path.slice(prefix.length) : path);

// TextEncoder rather than Buffer: the cockpit parses diffs in the browser too.
const utf8 = new TextEncoder();

/** Git's C-style quoting: "a/\303\244.txt" → a/ä.txt. */
function unquote(value: string): string {
  if (!(value.length >= 2 && value.startsWith('"') && value.endsWith('"'))) return value;
  const bytes: number[] = [];
  const body = value.slice(1, -1);
  const simple: Record<string, string> = {
    n: '\n',
    t: '\t',
    '"': '"',
    '\\': '\\',
    a: '\x07',
    b: '\b',
    f: '\f',
    r: '\r',
    v: '\v',
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...utf8.encode(c));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 3;
    } else {
      const next = body[i + 1] ?? '';
      bytes.push(...utf8.encode(simple[next] ?? next));
      i++;
    }
  }
  return new TextDecoder().decode(Uint8Array.from(bytes));
}
