/**
 * `fn` remembering its last answer: called again with the same arguments (each the same value or the same
 * object, by `Object.is`), it answers as last time without running.
 */
export function memo<Args extends unknown[], Result>(fn: (...args: Args) => Result): (...args: Args) => Result {
  let last: { args: Args; result: Result } | null = null;
  return (...args) => {
    if (last && last.args.length === args.length && args.every((a, k) => Object.is(a, last!.args[k]))) {
      return last.result;
    }
    const result = fn(...args);
    last = { args, result };
    return result;
  };
}
