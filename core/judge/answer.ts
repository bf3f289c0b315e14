// The judge's answer (docs/contract.md §10), read strictly: exactly one JSON object with exactly these keys. Anything
// else is a failed attempt, never a guessed verdict. The reason is guarded against quoting the issue and
// cut to length (reason-guard.ts): a long reason is cut, never a failed attempt. The call asks for the answer
// as JSON of this schema (JUDGE_ANSWER_JSON_SCHEMA); the text that comes back is read the same way whether
// the provider held the model to the schema or the model just wrote the JSON, as the local stand-ins do.
import * as z from '#schema/zod.ts';
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

/** The answer's JSON Schema, derived from the one above, for the provider's structured output. */
export const JUDGE_ANSWER_JSON_SCHEMA: Record<string, unknown> = z.toJSONSchema(judgeAnswerSchema, { io: 'input' });

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
