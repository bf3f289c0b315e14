// The judge's answer (docs/contract.md §10), read strictly: exactly one JSON object with exactly these keys. Anything
// else is a failed attempt, never a guessed verdict. The reason is guarded against quoting the issue and
// cut to length (reason-guard.ts): a long reason is cut, never a failed attempt.
import * as z from '../schema/zod.ts';
import { guardReason } from './reason-guard.ts';

export const judgeAnswerSchema = z.strictObject({
  verdict: z.enum(['resolved', 'partial', 'wrong']),
  rootCauseFound: z.boolean(),
  sameFilesAsReference: z.boolean(),
  testAdded: z.boolean(),
  wouldCompile: z.boolean(),
  reason: z.string().check(z.trim(), z.minLength(1)),
});
export type JudgeAnswer = z.output<typeof judgeAnswerSchema>;

export type ParsedAnswer = { ok: true; answer: JudgeAnswer } | { ok: false; problem: string };

/** The problem sentence names keys and expectations only: it is stored on the row, the answer text is not. */
export function parseJudgeAnswer(text: string, issueText: string): ParsedAnswer {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'The judge model did not answer with one JSON object.' };
  }
  const result = judgeAnswerSchema.safeParse(json);
  if (result.success)
    return { ok: true, answer: { ...result.data, reason: guardReason(result.data.reason, issueText) } };
  const details = result.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
  return { ok: false, problem: `The judge model's answer has the wrong shape (${details.join('; ')}).` };
}
