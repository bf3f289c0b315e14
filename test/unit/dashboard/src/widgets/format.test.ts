// How counts' medians read on the page: a median of whole counts is whole or halfway between two, and is written so,
// never rounded to a count no run had ("9 steps" for a median of 8.5).
import { describe, expect, it } from '@jest/globals';
import { countMedian, counted } from '#dashboard/src/widgets/format.ts';

describe('a median of counts', () => {
  it('is written whole, or with its half', () => {
    expect(countMedian(9)).toBe('9');
    expect(countMedian(8.5)).toBe('8.5');
    expect(countMedian(12_000.5)).toBe('12,000.5');
  });
});

describe('a count with its noun', () => {
  it('says one of a thing in the singular and any other number in the plural', () => {
    expect([0, 1, 2, 1234].map((v) => counted(v, 'file'))).toEqual(['0 files', '1 file', '2 files', '1,234 files']);
  });
});
