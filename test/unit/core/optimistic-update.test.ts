// The read-decide-write loop every raced record goes through: a lost race decides again on the latest value,
// and the work a decision names to do before its write runs only on the way to a write.
import { describe, expect, it } from '@jest/globals';
import { ConflictError, optimisticUpdate, type VersionedRecord } from '#core/optimistic-update.ts';

/** A counter in memory whose first `losses` writes lose to another writer that adds 10. */
function racedCounter(losses: number) {
  let stored = { value: 0, rev: 1 };
  const events: string[] = [];
  const record: VersionedRecord<number> = {
    read: async () => ({ ...stored }),
    write: async (value, expectedRev) => {
      if (losses > 0) {
        losses--;
        stored = { value: stored.value + 10, rev: stored.rev + 1 };
        events.push(`lost writing ${value}`);
        return false;
      }
      if (expectedRev !== stored.rev) return false;
      stored = { value, rev: stored.rev + 1 };
      events.push(`wrote ${value}`);
      return true;
    },
  };
  return { record, events, stored: () => stored.value };
}

describe('an optimistic update', () => {
  it('decides again on the value that won the race, and runs the work before each write just before it', async () => {
    const counter = racedCounter(2);
    const result = await optimisticUpdate(
      counter.record,
      (current) => ({
        write: current!.value + 1,
        result: `from ${current!.value}`,
        before: async () => void counter.events.push(`before ${current!.value + 1}`),
      }),
      { what: 'counting' },
    );
    expect(result).toBe('from 20');
    expect(counter.stored()).toBe(21);
    expect(counter.events).toEqual([
      'before 1',
      'lost writing 1',
      'before 11',
      'lost writing 11',
      'before 21',
      'wrote 21',
    ]);
  });

  it('ends without writing, and without the work, when the decision is done', async () => {
    const counter = racedCounter(0);
    const result = await optimisticUpdate(counter.record, (current) => ({ done: current!.value }), { what: 'reading' });
    expect(result).toBe(0);
    expect(counter.events).toEqual([]);
  });

  it('gives up after maxConflicts lost races, naming what it was doing', async () => {
    const counter = racedCounter(5);
    await expect(
      optimisticUpdate(counter.record, (current) => ({ write: current!.value + 1, result: null }), {
        what: 'counting',
        maxConflicts: 3,
      }),
    ).rejects.toEqual(new ConflictError('Gave up counting after 3 conflicting writes.'));
    expect(counter.stored()).toBe(30);
  });
});
