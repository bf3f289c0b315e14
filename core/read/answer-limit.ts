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
  if (!exceedsLimit(maxBytes, answer)) return answer;
  return jsonError(413, error, sentence((sizeOf(answer) / 1e6).toFixed(1)));
}

const sizeOf = (answer: HttpAnswer) =>
  answer.body instanceof Uint8Array
    ? answer.body.byteLength
    : Buffer.byteLength(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));

/** Whether the answer is larger than `maxBytes` (undefined: no limit). */
export const exceedsLimit = (maxBytes: number | undefined, answer: HttpAnswer): boolean =>
  maxBytes !== undefined && sizeOf(answer) > maxBytes;
