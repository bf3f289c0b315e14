// The runs in view as CSV or JSON (docs/contract.md §6): only the allowlisted fields, in the allowlist's order (or a
// space's narrower `exports.fields`). CSV is RFC 4180 with a header row and CRLF line ends; null is an
// empty cell; a cell starting with =, +, -, @, TAB or CR gets a leading ' so a spreadsheet shows it as text
// instead of running it as a formula (a model name is whatever a runner sent; rows stored before ingest refused
// control characters may hold them).
import type { ExportField } from '../schema/export-fields.ts';
import { priceOf, runCostUsd, type Prices } from './group-stats.ts';
import type { SnapshotRun } from '../cockpit/run-snapshot.ts';

export type ExportRecord = Partial<Record<ExportField, string | number | null>>;

export function exportRecord(run: SnapshotRun, fields: readonly ExportField[], prices: Prices): ExportRecord {
  const record: ExportRecord = {};
  for (const field of fields) {
    record[field] = field === 'runCostUsd' ? runCostUsd(priceOf(prices, run.model), run) : run[field];
  }
  return record;
}

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(fields: readonly ExportField[], records: Iterable<ExportRecord>): string {
  const lines = [fields.map(csvCell).join(',')];
  for (const record of records) lines.push(fields.map((f) => csvCell(record[f])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
