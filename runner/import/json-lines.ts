// A JSON Lines file read one line at a time, whatever its size: an OpenHands output.jsonl can hold gigabytes. A
// line longer than the cap is not held at all: its bytes are dropped as they stream past, and the line is named
// (file:line) and skipped, as is a line that is not a JSON object. node:readline would buffer a line whole before
// handing it over, so the split is done here on the raw chunks.
import { createReadStream } from 'node:fs';

export const MAX_JSON_LINE_BYTES = 32 * 1024 * 1024;

export type JsonLine = { line: number; value: Record<string, unknown> } | { line: number; problem: string };

const NEWLINE = 0x0a;

/** Each non-empty line: its parsed object, or why it was skipped (too long, not JSON, not an object). */
export async function* readJsonLines(path: string, maxLineBytes = MAX_JSON_LINE_BYTES): AsyncGenerator<JsonLine> {
  let parts: Buffer[] = [];
  let held = 0;
  let tooLong = false;
  let line = 1;
  const finish = (): JsonLine | null => {
    const at = line++;
    if (tooLong) return { line: at, problem: `is longer than ${maxLineBytes / (1024 * 1024)} MiB: skipped` };
    const text = Buffer.concat(parts, held).toString('utf8');
    if (!text.trim()) return null;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { line: at, problem: 'is not valid JSON: skipped' };
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      return { line: at, problem: 'is not a JSON object: skipped' };
    return { line: at, value: value as Record<string, unknown> };
  };
  const take = (chunk: Buffer) => {
    if (tooLong) return;
    if (held + chunk.length > maxLineBytes) {
      tooLong = true;
      parts = [];
      held = 0;
      return;
    }
    parts.push(chunk);
    held += chunk.length;
  };
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      take(chunk.subarray(start, end));
      const done = finish();
      parts = [];
      held = 0;
      tooLong = false;
      if (done) yield done;
      start = end + 1;
    }
    if (start < chunk.length) take(Buffer.from(chunk.subarray(start)));
  }
  const last = finish();
  if (last) yield last;
}
