// The judge's reason is shown in the space's private cockpits (never a public one) and kept in the audit
// object; the issue text (which may name clients) must reach neither (docs/contract.md §5). A reason that quotes the
// issue — its whole title, or any 40 consecutive characters of title or body, with runs of whitespace
// collapsed and case ignored — is replaced by a fixed sentence. Otherwise any run of four or more words it
// shares with the issue, and every e-mail address and URL in it, are masked; only then is it cut to length.

export const REASON_WITHHELD = '[reason withheld: it quoted the issue]';
export const ANSWER_WITHHELD = '[answer withheld: it quoted the issue]';
export const MAX_REASON_CHARS = 500;
const QUOTE_CHARS = 40;

const normalise = (text: string) => text.replace(/\s+/gu, ' ').trim().toLowerCase();

/** The issue text as the reference source gives it: the title on the first line, then the body. */
function titleAndBody(issueText: string): { title: string; body: string } {
  const lineEnd = issueText.indexOf('\n');
  return lineEnd < 0
    ? { title: issueText, body: '' }
    : { title: issueText.slice(0, lineEnd), body: issueText.slice(lineEnd + 1) };
}

/** Whether `text` contains the whole title or 40 consecutive characters of the title or the body. */
export function quotesIssue(text: string, issueText: string): boolean {
  const said = normalise(text);
  const { title, body } = titleAndBody(issueText);
  const wholeTitle = normalise(title);
  if (wholeTitle && said.includes(wholeTitle)) return true;
  if (said.length < QUOTE_CHARS) return false;
  // Every 40-character window of what was said, then one pass over the issue's windows: linear in both.
  const windows = new Set<string>();
  for (let i = 0; i + QUOTE_CHARS <= said.length; i++) windows.add(said.slice(i, i + QUOTE_CHARS));
  // Title and body are also checked joined, so a quote that runs from one into the other counts.
  for (const source of [normalise(`${title} ${body}`)]) {
    for (let i = 0; i + QUOTE_CHARS <= source.length; i++)
      if (windows.has(source.slice(i, i + QUOTE_CHARS))) return true;
  }
  return false;
}

export const MASK = '[…]';
const SHARED_WORDS = 4;
const WORD = /[\p{L}\p{N}_]+(?:['’.-][\p{L}\p{N}_]+)*/gu;
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
const URL_LIKE = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>"'`)\]]+/giu;

/** Every run of four or more words that the issue text has too (case ignored), replaced by MASK. */
function maskSharedWords(reason: string, issueText: string): string {
  const issueWords = Array.from(issueText.matchAll(WORD), (m) => m[0].toLowerCase());
  const grams = new Set<string>();
  for (let i = 0; i + SHARED_WORDS <= issueWords.length; i++)
    grams.add(issueWords.slice(i, i + SHARED_WORDS).join(' '));
  const words = Array.from(reason.matchAll(WORD), (m) => ({
    text: m[0].toLowerCase(),
    start: m.index,
    end: m.index + m[0].length,
  }));
  const masked = new Array<boolean>(words.length).fill(false);
  for (let i = 0; i + SHARED_WORDS <= words.length; i++) {
    if (
      grams.has(
        words
          .slice(i, i + SHARED_WORDS)
          .map((w) => w.text)
          .join(' '),
      )
    )
      masked.fill(true, i, i + SHARED_WORDS);
  }
  let out = '';
  let at = 0;
  for (let i = 0; i < words.length; i++) {
    if (!masked[i]) continue;
    let j = i;
    while (j + 1 < words.length && masked[j + 1]) j++;
    out += `${reason.slice(at, words[i]!.start)}${MASK}`;
    at = words[j]!.end;
    i = j;
  }
  return out + reason.slice(at);
}

/**
 * The reason as it may be stored and shown: withheld if it quotes the issue; else its runs of four or more
 * words shared with the issue, its e-mail addresses and its URLs masked, and cut to 500 characters.
 */
export function guardReason(reason: string, issueText: string): string {
  if (quotesIssue(reason, issueText)) return REASON_WITHHELD;
  const masked = maskSharedWords(reason, issueText).replace(EMAIL, MASK).replace(URL_LIKE, MASK);
  return masked.length <= MAX_REASON_CHARS ? masked : masked.slice(0, MAX_REASON_CHARS);
}

/**
 * The model's answer as the audit object keeps it: a JSON answer with its reason guarded like the row's;
 * any other text kept only if it does not quote the issue.
 */
export function auditedAnswerText(text: string, issueText: string): string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return quotesIssue(text, issueText) ? ANSWER_WITHHELD : text;
  }
  if (
    json &&
    typeof json === 'object' &&
    !Array.isArray(json) &&
    typeof (json as { reason?: unknown }).reason === 'string'
  ) {
    const guarded = { ...json, reason: guardReason((json as { reason: string }).reason, issueText) };
    const out = JSON.stringify(guarded);
    return quotesIssue(out, issueText) ? ANSWER_WITHHELD : out;
  }
  return quotesIssue(text, issueText) ? ANSWER_WITHHELD : text;
}
