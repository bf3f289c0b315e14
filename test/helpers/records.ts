// What the pipeline stores, one factory per record type: a run row, an issue, a host. Rows and issues come
// from the deliveries in deliveries.ts through the same builders the benchmarks load with (bench/direct-load,
// which applies the real landing rules), so a test's row is one landing could have written.
import { landedRow, storedIssue as storedIssueOf } from '../../bench/direct-load.ts';
import type { StoredHost } from '#schema/host.ts';
import type { SentIssue } from '#schema/issue.ts';
import type { RunRow } from '#schema/run.ts';
import { DEFAULT_HOST, issueRecord, runDelivery } from './deliveries.ts';

export const DEFAULT_SPACE = 'S';
export const LANDED_AT = '2026-11-29T12:00:00.000Z';

/**
 * A run row as landing writes it for `runDelivery(runner)`: in `stored.space`, landed (and due for the judge)
 * at `stored.updatedAt ?? stored.landedAt`, holding `hiddenTestResult` when the hidden tests reported before the
 * run; every field of `stored` is then set as given.
 */
export function runRow(
  runner: Record<string, unknown> = {},
  stored: Partial<RunRow> = {},
  hiddenTestResult?: Record<string, unknown>,
): RunRow {
  const at = stored.updatedAt ?? stored.landedAt ?? LANDED_AT;
  const pending = hiddenTestResult && { hiddenTestResult };
  return { ...landedRow(stored.space ?? DEFAULT_SPACE, runDelivery(runner), at, pending), ...stored };
}

export function storedIssue(
  overrides: Record<string, unknown> = {},
  { space = DEFAULT_SPACE, updatedAt = LANDED_AT } = {},
): SentIssue {
  return storedIssueOf(space, issueRecord(overrides), updatedAt);
}

export function storedHost(overrides: Partial<StoredHost> = {}): StoredHost {
  return {
    host: DEFAULT_HOST,
    hostHardware: 'Mac Studio M2 Ultra 192 GB',
    space: DEFAULT_SPACE,
    firstDeliveryAt: '2026-11-20T10:12:05.000Z',
    lastDeliveryAt: LANDED_AT,
    ...overrides,
  };
}
