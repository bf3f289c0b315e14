// The judge's reason is shown in every cockpit of the space, public ones included, and kept in the audit
// object; the issue text (which may name clients) must reach neither (docs/contract.md §5). A reason that quotes the
// issue — its whole title, or any 40 consecutive characters of title or body, with runs of whitespace
// collapsed and case ignored — is replaced by a fixed sentence; only then is it cut to length.

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

/** The reason as it may be stored and shown: withheld if it quotes the issue, else cut to 500 characters. */
export function guardReason(reason: string, issueText: string): string {
  if (quotesIssue(reason, issueText)) return REASON_WITHHELD;
  return reason.length <= MAX_REASON_CHARS ? reason : reason.slice(0, MAX_REASON_CHARS);
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
