import type * as z from './zod.ts';

/** Turns zod issues into short phrases that name the offending key, e.g. `spaces.A.senders: expected array`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
    // A refused record key (a space or cockpit name) says why, not only that it was refused.
    const why = issue.code === 'invalid_key' ? `: ${issue.issues.map((inner) => inner.message).join('; ')}` : '';
    return `${path || '(root)'}: ${issue.message}${why}${keys}`;
  });
}
