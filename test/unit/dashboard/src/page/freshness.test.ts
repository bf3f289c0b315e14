// The header's freshness line (docs/contract.md §6 "Freshness"): when the newest run in view landed, and the poll
// only when it failed or has not succeeded for a minute.
import { describe, expect, it } from '@jest/globals';
import { freshnessText, LAG_MS } from '#dashboard/src/page/freshness.ts';

const NOW = Date.parse('2026-03-04T14:05:00Z');

describe('the freshness line', () => {
  it('says when the newest run in view landed, with its UTC time, and nothing about a poll that worked', () => {
    const newest = Date.parse('2026-03-04T14:02:00Z');
    expect(freshnessText(newest, 120, 300, { lastUpdate: NOW - 3000, lastError: null }, NOW)).toEqual({
      text: '● newest run landed 3 min ago · 14:02 UTC · 120 of 300 runs',
      failing: false,
    });
    // Another day: the date too.
    expect(
      freshnessText(Date.parse('2026-03-01T09:30:00Z'), 1, 1, { lastUpdate: NOW, lastError: null }, NOW).text,
    ).toBe('● newest run landed 77 h ago · 2026-03-01 09:30 UTC · 1 of 1 runs');
    expect(freshnessText(null, 0, 0, { lastUpdate: NOW, lastError: null }, NOW).text).toBe(
      '● no run in view has landed yet · 0 of 0 runs',
    );
  });

  it('says the page is not up to date when the last poll failed, or none has succeeded for a minute', () => {
    const newest = Date.parse('2026-03-04T14:02:00Z');
    expect(freshnessText(newest, 5, 5, { lastUpdate: NOW - 12_000, lastError: 'HTTP 503' }, NOW)).toEqual({
      text: '⚠ not updated for 12 s — retrying (HTTP 503) · newest run landed 3 min ago · 14:02 UTC · 5 of 5 runs',
      failing: true,
    });
    expect(freshnessText(newest, 5, 5, { lastUpdate: NOW - LAG_MS, lastError: null }, NOW).failing).toBe(false);
    expect(freshnessText(newest, 5, 5, { lastUpdate: NOW - 120_000, lastError: null }, NOW)).toEqual({
      text: '⚠ not updated for 2 min — retrying · newest run landed 3 min ago · 14:02 UTC · 5 of 5 runs',
      failing: true,
    });
  });
});
