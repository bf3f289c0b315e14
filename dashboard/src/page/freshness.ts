// The header's account of freshness (docs/contract.md §6 "Freshness"): when the newest run in view landed ("newest
// run landed 3 min ago · 14:02 UTC"), how many runs are in view, and the page's polling only when it fails
// or lags ("not updated for 2 min — retrying"): a poll that succeeded says nothing about whether anything
// new arrived, so it is not news.
import { ago, count } from '../widgets/format.ts';
import type { Computed } from './view-model.ts';

/** No successful update for this long is a lag worth saying, even without an error (two background polls). */
export const LAG_MS = 60_000;

/** The newest landing among the runs in view, epoch ms; null when none is known. */
export function newestLanding(m: Computed): number | null {
  const landed = m.table.numbers.landedAt;
  let newest = -Infinity;
  for (let s = 0; s < m.selection.length; s++) {
    const v = landed[m.selection[s]!]!;
    if (v > newest) newest = v;
  }
  return Number.isFinite(newest) ? newest * 1000 : null;
}

/** "14:02 UTC", with the date when it is not today (UTC). */
function clock(ms: number, now: number): string {
  const iso = new Date(ms).toISOString();
  const time = `${iso.slice(11, 16)} UTC`;
  return iso.slice(0, 10) === new Date(now).toISOString().slice(0, 10) ? time : `${iso.slice(0, 10)} ${time}`;
}

export interface PollState {
  /** When the last update from the read API arrived. */
  lastUpdate: number;
  /** Why the last one failed; null when it did not. */
  lastError: string | null;
}

/** The header line, and whether it reports a problem. */
export function freshnessText(
  newest: number | null,
  inView: number,
  total: number,
  poll: PollState,
  now = Date.now(),
): { text: string; failing: boolean } {
  const landed =
    newest === null
      ? 'no run in view has landed yet'
      : `newest run landed ${ago(now - newest)} · ${clock(newest, now)}`;
  const runs = `${count(inView)} of ${count(total)} runs`;
  const stale = now - poll.lastUpdate;
  if (poll.lastError)
    return {
      text: `⚠ not updated for ${ago(stale).replace(/ ago$/, '')} — retrying (${poll.lastError}) · ${landed} · ${runs}`,
      failing: true,
    };
  if (stale > LAG_MS)
    return {
      text: `⚠ not updated for ${ago(stale).replace(/ ago$/, '')} — retrying · ${landed} · ${runs}`,
      failing: true,
    };
  return { text: `● ${landed} · ${runs}`, failing: false };
}
