// The judge's free-text reason reaches the space's private cockpits and the audit, so it may carry no issue text:
// a quote withholds it, shared runs of words, e-mail addresses and URLs are masked.
import { describe, expect, it } from '@jest/globals';
import { parseJudgeAnswer } from '#core/judge/answer.ts';
import { auditedAnswerText, MASK, MAX_REASON_CHARS, REASON_WITHHELD } from '#core/judge/reason-guard.ts';

const TITLE = 'Widgets crash on empty input';
const BODY =
  'Customer Northwind Traders saw the importer fail every night since the March upgrade.\nSteps: run it twice.';
const ISSUE = `${TITLE}\n\n${BODY}`;
const answerWith = (reason: string) =>
  JSON.stringify({
    verdict: 'wrong',
    rootCauseFound: false,
    sameFilesAsReference: false,
    testAdded: false,
    wouldCompile: true,
    reason,
  });
const reasonOf = (text: string) => {
  const parsed = parseJudgeAnswer(text, ISSUE);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.answer.reason;
};

describe("the judge's reason", () => {
  it.each([
    ['the whole title, in another case and spacing', 'It fixes WIDGETS  crash on\nempty input, partly.'],
    [
      '40 consecutive characters of the body',
      'The patch is unrelated: northwind traders saw the importer fail every night.',
    ],
    [
      '40 consecutive characters of the title and body across the line break',
      `${TITLE.slice(-20)} ${BODY.slice(0, 25)}`,
    ],
  ])('is withheld when it quotes %s', (_what, reason) => {
    expect(reasonOf(answerWith(reason))).toBe(REASON_WITHHELD);
  });

  it('is kept when it shares only short phrases with the issue', () => {
    const reason = 'The importer change misses the empty input case; the reference adds a guard.';
    expect(reasonOf(answerWith(reason))).toBe(reason);
  });

  it('has every run of four or more words shared with the issue masked, and nothing shorter', () => {
    expect(reasonOf(answerWith('It misses why traders saw the importer; three words ok: the March upgrade.'))).toBe(
      `It misses why ${MASK}; three words ok: the March upgrade.`,
    );
  });

  it('has e-mail addresses and URLs masked', () => {
    expect(
      reasonOf(
        answerWith('Ask ops@northwind.example or see https://tracker.northwind.example/T-12?x=1 and www.nw.example.'),
      ),
    ).toBe(`Ask ${MASK} or see ${MASK} and ${MASK}`);
  });

  it('is cut to 500 characters rather than failing the attempt', () => {
    const reason = `${'The change is sound. '.repeat(300)}`.trim();
    const kept = reasonOf(answerWith(reason));
    expect(kept.length).toBe(MAX_REASON_CHARS);
    expect(reason.startsWith(kept)).toBe(true);
  });

  it('is checked before it is cut, so a quote past character 500 still withholds it', () => {
    const reason = `${'x'.repeat(600)} ${BODY.slice(0, 60)}`;
    expect(reasonOf(answerWith(reason))).toBe(REASON_WITHHELD);
  });
});

describe('the audit copy of the answer', () => {
  it('carries the reason treated the same way, and no issue text', () => {
    const audited = auditedAnswerText(answerWith(`Looks like: ${BODY}`), ISSUE);
    expect(JSON.parse(audited)).toMatchObject({ verdict: 'wrong', reason: REASON_WITHHELD });
    expect(audited.toLowerCase()).not.toContain('northwind');
  });

  it('withholds an unparsable answer that quotes the issue, and keeps one that does not', () => {
    expect(auditedAnswerText(`Sure! ${TITLE}. Verdict: resolved`, ISSUE)).not.toContain(TITLE);
    expect(auditedAnswerText('not json at all', ISSUE)).toBe('not json at all');
  });
});
