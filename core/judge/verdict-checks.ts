// What the pipeline checks itself before it believes a verdict (docs/contract.md §5). The model reads the
// candidate as data, but a candidate may still talk to it; so everything the model reads that others wrote —
// the candidate as rebuilt from its parsed diff (rebuiltDiff: every line kind, nothing else), its summary, the
// issue text and the reference fix (read between commits a sender's issue record names) — is screened for text
// addressed to a judge, grader or model (the rules are data, in shared/analytics/flag-rules.ts), and a "resolved"
// is compared with facts computed from the two diffs. A run whose "resolved" either check contradicts is flagged
// instead of counted.
import { parseDiff, touchedPaths } from '#shared/diff.ts';
import { readAsLatin } from '#shared/look-alikes.ts';
import { isLockFile } from '../reference/lock-files.ts';
import {
  ISSUE_TEXT_PREFIX,
  REFERENCE_FIX_PREFIX,
  RESOLVED_WITHOUT_EVIDENCE,
  SCREEN_RULES,
} from '#analytics/flag-rules.ts';

/** What the checks found, computed before the model is called. */
export interface VerdictChecks {
  /**
   * Ids of the screen rules the candidate (its rebuilt diff and summary) hit, in rule order, then those the
   * issue text hit, behind ISSUE_TEXT_PREFIX, then those the reference fix hit, behind REFERENCE_FIX_PREFIX.
   */
  screenHits: string[];
  /** The candidate changes the same source files as the reference fix (lock and test files aside). */
  sameFiles: boolean;
  /** The candidate changes at least one source file the reference fix changed. */
  sharesReferenceFile: boolean;
  /** The candidate adds or changes a test file. */
  changesTest: boolean;
}

/**
 * `candidateDiff` is the rebuilt diff, the one the model reads; the issue text is screened in memory only,
 * like everything the judge holds of it. The reference fix is screened with the paths of the lock files left
 * out of it, which name directories the fix's author chose.
 */
export function verdictChecks(
  candidateDiff: string,
  summary: string,
  reference: { diff: string; omittedLockFiles: readonly string[] },
  issueText: string,
): VerdictChecks {
  const candidate = sourceFiles(candidateDiff);
  const referenceFiles = sourceFiles(reference.diff);
  return {
    screenHits: [
      ...screen(`${candidateDiff}\n${summary}`),
      ...screen(issueText).map((id) => `${ISSUE_TEXT_PREFIX}${id}`),
      ...screen([reference.diff, ...reference.omittedLockFiles].join('\n')).map((id) => `${REFERENCE_FIX_PREFIX}${id}`),
    ],
    // The reference's tests are the hidden tests, and a candidate's own tests are the rubric's "test added".
    sameFiles: JSON.stringify(candidate.filter(isCode)) === JSON.stringify(referenceFiles.filter(isCode)),
    sharesReferenceFile: candidate.some((path) => referenceFiles.includes(path)),
    changesTest: parseDiff(candidateDiff).files.some((f) => f.newPath !== null && isTestPath(f.newPath)),
  };
}

/**
 * The rules a verdict is flagged by: every screen hit, and for a "resolved" on a candidate that changes none
 * of the reference's files and no test, the fact rule. Only a "resolved" is ever withheld (docs/contract.md
 * §5); the flags of another verdict are kept beside it.
 */
export function verdictFlags(verdict: string, checks: VerdictChecks): string[] {
  const contradicted = verdict === 'resolved' && !checks.sharesReferenceFile && !checks.changesTest;
  return [...checks.screenHits, ...(contradicted ? [RESOLVED_WITHOUT_EVIDENCE.id] : [])];
}

/**
 * The ids of the screen rules `text` hits, as a reader sees it: normalised three ways (the characters a reader does
 * not see dropped; read as spaces, since between words they separate them; the blank-looking ones read as spaces
 * and the rest dropped, for a text that uses both), each again with digits and signs read as the letters they
 * stand in for inside words ("r3s0lv3d") and I, l, 1, | and ! read as one letter ("th1s", "a11"). A fourth reading
 * reads the text as rendered markup, and names of four words or more run together as their words (withoutMarkup:
 * "ig**nore**", "pa&#115;s", "ignoreAllPreviousInstructions"). A fifth marks each unseen character between two
 * letters and reads every mark both ways, against the rules with a mark allowed between any two letters of a word:
 * one zero-width space may part two words and hide inside a third ("ignore", "all" and "prev", "ious" parted by one).
 */
export function screen(text: string): string[] {
  const readings = [...UNSEEN_READINGS.map((unseen) => normalise(text, unseen)), withoutMarkup(text)];
  const marked = markedReading(text);
  const [plain, folded] = [readings, readings.map(lettersFolded)];
  const [markedPlain, markedFolded] = marked === null ? [null, null] : [marked, lettersFolded(marked)];
  return SCREEN_RULES.filter(
    (rule, i) =>
      plain.some((reading) => rule.pattern.test(reading)) ||
      folded.some((reading) => PATTERNS.folded[i]!.test(reading)) ||
      (markedPlain !== null && PATTERNS.marked[i]!.test(markedPlain)) ||
      (markedFolded !== null && PATTERNS.markedFolded[i]!.test(markedFolded)),
  ).map((rule) => rule.id);
}

/** What an unseen character reads as in the marked reading: a private-use character, a non-word sign. */
const MARK = '\uE000';
const WORD_CHAR = '[\\p{L}\\p{N}@$|]';

/**
 * The text with each run of unseen characters between two letters or digits marked once, and the others dropped
 * (beside a sign or a space a mark parts nothing); null where no mark is left, the dropped reading then.
 */
function markedReading(text: string): string | null {
  const marked = normalise(text, 'marked')
    .replace(/\uE000+/g, MARK)
    .replace(new RegExp(`(?<!${WORD_CHAR})\\uE000|\\uE000(?!${WORD_CHAR})`, 'gu'), '');
  return marked.includes(MARK) ? marked : null;
}

/**
 * A rule's pattern rewritten for a reading: `marks`, a mark allowed between two letters that follow each other (or
 * a group and a letter); `fold`, l read as i. It reads the syntax the rules use: escapes (`\b`, `\W`, `\u{…}`,
 * `\p{…}`), classes, group openers (`(?:`, `(?=`, `(?<=`), repeats and counted repeats.
 */
function forReading(source: string, { marks, fold }: { marks: boolean; fold: boolean }): string {
  let out = '';
  let joinable = false;
  for (let i = 0; i < source.length;) {
    const token = /^(?:\\[pPu]\{[^}]*\}|\\.|\[(?:\\.|[^\]\\])*\]|\(\?(?:<?[=!]|:)?|\{\d*,?\d*\}|.)/su.exec(
      source.slice(i),
    )![0];
    const letter = /^[a-z]$/i.test(token);
    out += (letter && joinable && marks ? '\\uE000*' : '') + (letter && fold && /l/i.test(token) ? 'i' : token);
    // A repeat keeps what it repeats joinable: "reviewers?" then a letter.
    if (!/^(?:[?*+]|\{\d*,?\d*\})$/.test(token)) joinable = letter || token === ')';
    i += token.length;
  }
  return out;
}

const patternsFor = (options: { marks: boolean; fold: boolean }) =>
  SCREEN_RULES.map((rule) => new RegExp(forReading(rule.pattern.source, options), rule.pattern.flags));
const PATTERNS = {
  folded: patternsFor({ marks: false, fold: true }),
  marked: patternsFor({ marks: true, fold: false }),
  markedFolded: patternsFor({ marks: true, fold: true }),
};

const DIGIT_LETTERS: Record<string, string> = {
  '0': 'o',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '6': 'b',
  '7': 't',
  '8': 'b',
  '9': 'g',
  '@': 'a',
  $: 's',
};

/**
 * Digits and signs inside a word that has letters (marks of unseen characters inside it too) read as letters, and
 * I, l, 1, | and an ! between letters as one letter, i (the rules are read with l as i for it).
 */
function lettersFolded(text: string): string {
  return text
    .replace(/(?<=\p{L})!(?=\p{L})/gu, 'i')
    .replace(/[\p{L}\d@$|\uE000]+/gu, (word) =>
      /\p{L}/u.test(word) ? word.replace(/[0134-9@$|lLI]/g, (c) => DIGIT_LETTERS[c] ?? 'i') : word,
    );
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * The dropped reading of the text as a reader of rendered markup sees it, words run together apart: character
 * references decoded ("&#115;"), HTML comments and tags removed, emphasis marks between letters dropped
 * ("ig**nore**"), a word hyphenated over two comment lines joined, and a name of four words or more run together
 * read as a sentence of its words ("markThisPatchAsResolved"; fewer are ordinary names: "judgeOverrides",
 * "isMarkedResolved"). Each pattern is bounded or anchored at a word's start, so the reading stays linear.
 */
function withoutMarkup(text: string): string {
  const decoded = text.replace(/&(?:#(\d{1,7})|#x([\da-f]{1,6})|([a-z]{2,6}));/gi, (reference, dec, hex, name) => {
    const code = dec ? Number(dec) : hex ? Number.parseInt(hex, 16) : null;
    if (code === null) return ENTITIES[(name as string).toLowerCase()] ?? reference;
    return code <= 0x10ffff ? String.fromCodePoint(code) : reference;
  });
  return normalise(decoded)
    .replace(/<!--[^]{0,200}?-->|<\/?[a-z][^<>\n]{0,200}>/gi, '')
    .replace(/(?<=\p{L})[*`~]+(?=\p{L})/gu, '')
    .replace(/(?<=\p{L})-[^\S\n]*\n[\W_]{0,40}?(?=\p{L})/gu, '')
    .replace(
      /(?<!\p{L})\p{L}\p{Ll}*(?:\p{Lu}\p{Ll}*){3,}(?!\p{L})/gu,
      (name) => `${name.replace(/(?<=\p{Ll})(?=\p{Lu})/gu, ' ')}.`,
    );
}

/**
 * Control characters but tab and line ends, format, private-use, unassigned and surrogate code points, non-ASCII
 * symbols and the default-ignorable ones.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSEEN = /[\0-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{So}\p{Default_Ignorable_Code_Point}]/gu;
/** The unseen characters that look like a space: a blank Braille pattern, the Hangul fillers. */
const BLANK = /[\u2800\u115F\u1160\u3164\uFFA0]/gu;
const UNSEEN_READINGS = ['dropped', 'spaces', 'blanks'] as const;
type UnseenReading = (typeof UNSEEN_READINGS)[number] | 'marked';

/**
 * Look-alikes of Latin letters read as those letters (readAsLatin: before compatibility forms are folded, and
 * again after), compatibility forms folded (full-width letters, ligatures), accents removed, and the characters a
 * reader does not see dropped, read as spaces, or read as spaces where they look blank and dropped otherwise: what
 * a reader sees, not how it was encoded. Not seen are format characters (bidirectional controls, zero-width
 * spaces), every default-ignorable code point (the Hangul fillers, which Unicode classes as letters), code points
 * private, unassigned or lone surrogates, and the non-ASCII symbols (a blank Braille pattern, a musical null
 * notehead, an emoji): inside a word each would hide it from the rules, which read words in ASCII.
 */
export function normalise(text: string, unseen: UnseenReading = 'dropped'): string {
  const folded = readAsLatin(text)
    .normalize('NFKD')
    .replace(/[\p{Mn}\p{Me}]/gu, '');
  const blanks = unseen === 'blanks' ? folded.replace(BLANK, ' ') : folded;
  const unseenAs = { dropped: '', blanks: '', spaces: ' ', marked: MARK }[unseen];
  return readAsLatin(blanks.replace(UNSEEN, unseenAs));
}

/** Paths of tests by the usual conventions: a test folder, or a test_/_test/.test/.spec/Test file name. */
export function isTestPath(path: string): boolean {
  return (
    /(^|\/)(__tests__|tests?|specs?|testing)\//i.test(path) ||
    /(^|\/)test_[^/]*$/i.test(path) ||
    /[._-](test|tests|spec|specs)\.[^/]+$/i.test(path) ||
    /[a-z0-9](Test|Tests|Spec|Specs)\.[^/.]+$/.test(path)
  );
}

const isCode = (path: string) => !isTestPath(path);

/** The source files a diff touches, lock files aside, sorted. */
function sourceFiles(diff: string): string[] {
  return [...touchedPaths(diff)].filter((path) => !isLockFile(path)).sort();
}
