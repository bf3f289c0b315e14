// The cockpit's memo helper: an answer is reused only while every argument is the same value or object.
import { describe, expect, it } from '@jest/globals';
import { memo } from '#dashboard/src/page/memo.ts';

describe('memo', () => {
  it('answers again without running while the arguments are the same', () => {
    let calls = 0;
    const sum = memo((a: number, b: number) => (calls++, a + b));
    expect(sum(1, 2)).toBe(3);
    expect(sum(1, 2)).toBe(3);
    expect(calls).toBe(1);
    expect(sum(1, 3)).toBe(4);
    expect(calls).toBe(2);
  });

  it('compares objects by identity, not by content', () => {
    let calls = 0;
    const size = memo((xs: number[]) => (calls++, xs.length));
    const list = [1, 2];
    size(list);
    size(list);
    expect(calls).toBe(1);
    size([1, 2]);
    expect(calls).toBe(2);
  });

  it('keeps only the last arguments: going back to earlier ones runs again', () => {
    let calls = 0;
    const twice = memo((n: number) => (calls++, 2 * n));
    expect([twice(1), twice(2), twice(1)]).toEqual([2, 4, 2]);
    expect(calls).toBe(3);
  });

  it('treats NaN as the same argument as NaN', () => {
    let calls = 0;
    const f = memo((n: number) => (calls++, n));
    f(NaN);
    f(NaN);
    expect(calls).toBe(1);
  });
});
