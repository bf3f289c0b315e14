// JSON read from files replay-push did not write (run folders, issue records, the outbox): a parse error says where
// the text stops being JSON, never what it says. The parser's own message quotes the text ("Unexpected token 'a',
// "aws_secret"..."), and the text may be a secret a link or a planted file pointed at.

export class JsonTextError extends Error {
  constructor(readonly where: string) {
    super(`is not valid JSON${where}`);
    this.name = 'JsonTextError';
  }
}

/** The parsed value, or a JsonTextError whose message is "is not valid JSON" and, when known, the position. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const position = /at position (\d+)/.exec((error as Error).message)?.[1];
    const where = position !== undefined ? ` (at position ${position})` : text.trim() ? '' : ' (it is empty)';
    throw new JsonTextError(where);
  }
}
