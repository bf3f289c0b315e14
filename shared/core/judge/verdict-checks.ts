// What the pipeline checks itself before it believes a verdict (docs/contract.md §5). The model reads the
// candidate as data, but a candidate may still talk to it; so what the candidate wrote (its added lines, any
// text before its first file, its summary) is screened for text addressed to a judge, grader or model (the
// rules are data, in shared/cockpit/flag-rules.ts), and a "resolved" is compared with facts computed from
// the two diffs. A run whose "resolved" either check contradicts is flagged instead of counted.
import { parseDiff, touchedPaths } from '../../cockpit/diff.ts';
import { isLockFile } from '../reference/lock-files.ts';
import { RESOLVED_WITHOUT_EVIDENCE, SCREEN_RULES } from '../../cockpit/flag-rules.ts';

/** What the checks found, computed before the model is called. */
export interface VerdictChecks {
  /** Ids of the screen rules the candidate's own text hit, in rule order. */
  screenHits: string[];
  /** The candidate changes the same source files as the reference fix (lock and test files aside). */
  sameFiles: boolean;
  /** The candidate changes at least one source file the reference fix changed. */
  sharesReferenceFile: boolean;
  /** The candidate adds or changes a test file. */
  changesTest: boolean;
}

export function verdictChecks(candidateDiff: string, summary: string, referenceDiff: string): VerdictChecks {
  const candidate = sourceFiles(candidateDiff);
  const reference = sourceFiles(referenceDiff);
  return {
    screenHits: screen(`${candidateText(candidateDiff)}\n${summary}`),
    // The reference's tests are the hidden tests, and a candidate's own tests are the rubric's "test added".
    sameFiles: JSON.stringify(candidate.filter(isCode)) === JSON.stringify(reference.filter(isCode)),
    sharesReferenceFile: candidate.some((path) => reference.includes(path)),
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

/** The ids of the screen rules `text` hits. */
export function screen(text: string): string[] {
  const normalised = normalise(text);
  return SCREEN_RULES.filter((rule) => rule.pattern.test(normalised)).map((rule) => rule.id);
}

/** What the candidate wrote itself: the added lines (without their "+") and any text before its first file. */
export function candidateText(diff: string): string {
  const parsed = parseDiff(diff);
  const lines = parsed.preamble === null ? [] : [parsed.preamble];
  for (const file of parsed.files) {
    let inHunks = false;
    for (const line of file.text.split('\n')) {
      // parseDiff cut the file at real headers, so past its first hunk header every "+" line is content.
      if (line.startsWith('@@')) inHunks = true;
      else if (inHunks && line.startsWith('+')) lines.push(line.slice(1));
    }
  }
  return lines.join('\n');
}

// Latin look-alikes from Cyrillic and Greek, the ones that pass for lower-case Latin letters in most fonts.
const LOOK_ALIKES: Record<string, string> = Object.fromEntries(
  [...'аеорсухіјѕԁһӏԛԝαεοριτυνκ'].map((c, i) => [c, 'aeopcyxijsdhlqwaeopituvk'[i]!]),
);

/**
 * Compatibility forms folded (full-width letters, ligatures), accents, invisible and bidirectional
 * characters removed, look-alike letters replaced: what a reader sees, not how it was encoded.
 */
export function normalise(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\p{Mn}\p{Cf}]/gu, '')
    .replace(/[^\t\n\r -~]/g, (c) => LOOK_ALIKES[c.toLowerCase()] ?? c);
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
