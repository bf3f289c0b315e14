// A name too long for its cell is cut in its middle, its end kept a little longer than its start: names that differ
// only in a date or version suffix (the grid's models and harnesses, the matrix's rows) still read apart. Measured
// here one unit a character.
import { describe, expect, it } from '@jest/globals';
import { middleCut } from '#dashboard/src/widgets/dom.ts';

const chars = (text: string) => [...text].length;

describe('a name cut in its middle', () => {
  it('is whole where it fits', () => {
    expect(middleCut('swe-agent-20240402', 18, chars)).toBe('swe-agent-20240402');
  });

  it('keeps its start and end around an ellipsis, within the width, the date suffix whole', () => {
    const cut = middleCut('claude-3-5-sonnet-20240620', 16, chars);
    expect(cut).toBe('claude-…20240620');
    expect(chars(cut)).toBeLessThanOrEqual(16);
  });

  it('is an ellipsis alone where nothing else fits', () => {
    expect(middleCut('gpt-4o-2024-05-13', 1, chars)).toBe('…');
    expect(middleCut('gpt-4o-2024-05-13', -4, chars)).toBe('…');
  });
});
