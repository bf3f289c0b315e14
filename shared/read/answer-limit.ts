// The most one answer of the read API may carry (a Lambda answer is capped at 6 MB): an answer beyond it becomes
// a 413 with a sentence, never a failed invocation.
import { jsonError, type HttpAnswer } from '../http.ts';

/** `maxBytes` undefined: no limit (local mode). */
export function withinLimit(
  maxBytes: number | undefined,
  answer: HttpAnswer,
  error: string,
  sentence: (mb: string) => string,
): HttpAnswer {
  if (maxBytes === undefined) return answer;
  const size =
    answer.body instanceof Uint8Array
      ? answer.body.byteLength
      : Buffer.byteLength(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  if (size <= maxBytes) return answer;
  return jsonError(413, error, sentence((size / 1e6).toFixed(1)));
}
