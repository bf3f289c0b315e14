// The runs in view as CSV, JSON or Parquet (docs/contract.md §6): exactly the rows the Runs grid shows for the
// same URL, only the allowlisted fields, in the allowlist's order (or a space's narrower `exports.fields`). CSV
// as shared/analytics/csv.ts writes it (rows stored before ingest refused control characters may hold them, and a
// model name is whatever a runner sent). Parquet has one typed column per field (export-fields.ts).
import { gzipSync } from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';
import {
  DOWNLOAD_LINK_HEADER,
  EXPORT_FORMATS,
  type ExportBody,
  type ExportFormat,
  type ExportPartsBody,
} from '#analytics/contract.ts';
import type { SnapshotRun } from '#analytics/run-snapshot.ts';
import { csvText } from '#analytics/csv.ts';
import type { HttpAnswer } from '../http.ts';
import { exportFieldsOf } from '#schema/config.ts';
import { exportTypeOf, type ExportField } from '#schema/export-fields.ts';
import { engineExportView, exportedRuns, exportQuery, isAnswer } from './analysis-routes.ts';
import { exportRowsSql } from './engine-queries.ts';
import { randomUUID } from 'node:crypto';
import { exportSpacePrefix } from '../storage-layout.ts';
import { exceedsLimit, withinLimit } from './answer-limit.ts';
import { priceOf, runCostUsd, type Prices } from './group-stats.ts';
import type { ReadDeps } from './read-deps.ts';

export type ExportValue = string | number | boolean | null;
export type ExportRecord = Partial<Record<ExportField, ExportValue>>;

/** Where a run's verdict comes from: its hidden tests when they passed or failed, else the judge when it answered. */
export function verdictSourceOf(run: Pick<SnapshotRun, 'hiddenTestStatus' | 'judgeVerdict'>): 'tests' | 'judge' | null {
  if (run.hiddenTestStatus === 'pass' || run.hiddenTestStatus === 'fail') return 'tests';
  return run.judgeVerdict === null ? null : 'judge';
}

export function exportRecord(
  run: SnapshotRun,
  fields: readonly ExportField[],
  prices: Prices,
  judgeReason: string | null = null,
): ExportRecord {
  const record: ExportRecord = {};
  for (const field of fields) {
    if (field === 'runCostUsd') record[field] = runCostUsd(priceOf(prices, run.model), run);
    else if (field === 'verdictSource') record[field] = verdictSourceOf(run);
    else if (field === 'judgeReason') record[field] = judgeReason;
    else record[field] = run[field];
  }
  return record;
}

export const toCsv = (fields: readonly ExportField[], records: Iterable<ExportRecord>): string =>
  csvText(
    fields,
    Array.from(records, (record) => fields.map((f) => record[f])),
  );

/** One typed, nullable column per field; instants as UTC milliseconds, counts as 64-bit integers. */
export function toParquet(fields: readonly ExportField[], records: readonly ExportRecord[]): Uint8Array {
  const columnData = fields.map((name) => {
    const type = exportTypeOf(name);
    const convert = (v: ExportValue | undefined) => {
      if (v === null || v === undefined) return null;
      if (type === 'TIMESTAMP') return new Date(v as string);
      if (type === 'INT64') return BigInt(v as number);
      return v;
    };
    return { name, type, nullable: true, data: records.map((r) => convert(r[name])) };
  });
  return new Uint8Array(parquetWriteBuffer({ columnData, createdBy: 'replay-bench' }));
}

/** Judge reasons leave only where a space lists the field; they live on the rows, not in the read model. */
async function judgeReasons(deps: ReadDeps, space: string, runs: readonly SnapshotRun[]): Promise<(string | null)[]> {
  const reasons: (string | null)[] = new Array(runs.length).fill(null);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < runs.length; i = next++) {
      if (runs[i]!.judgeVerdict !== null)
        reasons[i] = (await deps.runs.getRun(space, runs[i]!.id))?.value.judgeReason ?? null;
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return reasons;
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  parquet: 'application/vnd.apache.parquet',
};

/** How long the link to an export too large for one answer works. */
export const EXPORT_LINK_SECONDS = 900;

/**
 * The export, or for one too large for an answer (with a place to put it) a 303 to a short-lived link; a
 * client that follows links by script (a signed-in cockpit, whose bearer token must not travel to object
 * storage) asks with `x-replay-download: link` and gets the link in a 200 saying so in that header.
 */
export async function exportRuns(
  deps: ReadDeps,
  space: string,
  query: URLSearchParams,
  format: ExportFormat,
  acceptsGzip: boolean,
  linkInBody = false,
): Promise<HttpAnswer> {
  const asked = exportQuery(query);
  if (isAnswer(asked)) return asked;
  const fields = exportFieldsOf(deps.config, space);
  // Judge reasons live on the rows, not in the run dataset: a space that exports them is read row by row.
  const byEngine =
    deps.downloads && !fields.includes('judgeReason') ? await engineExportView(deps, space, query, asked) : null;
  if (byEngine) return engineExport(deps, space, byEngine, format, fields, linkInBody);
  const { runs, selection, asOf, outcome } = await exportedRuns(deps, space, query, asked);
  const chosen = Array.from(selection, (i) => runs[i]!);
  const reasons = fields.includes('judgeReason') ? await judgeReasons(deps, space, chosen) : [];
  const records = chosen.map((run, k) => exportRecord(run, fields, deps.config.prices, reasons[k] ?? null));
  // Parquet compresses its own pages; gzip around it saves nothing.
  const gzip = acceptsGzip && format !== 'parquet';
  const bytes =
    format === 'parquet'
      ? toParquet(fields, records)
      : Buffer.from(
          format === 'csv'
            ? toCsv(fields, records)
            : JSON.stringify({ runs: records, outcome, asOf } satisfies ExportBody),
        );
  const filename = `${space}-runs.${format}`;
  const headers: Record<string, string> = {
    'content-disposition': `attachment; filename="${filename}"`,
    vary: 'accept-encoding',
  };
  const answer = {
    status: 200,
    body: gzip ? gzipSync(bytes, { level: 6 }) : bytes,
    contentType: CONTENT_TYPES[format],
    headers: gzip ? { ...headers, 'content-encoding': 'gzip' } : headers,
  };
  if (deps.downloads && exceedsLimit(deps.maxAnswerBytes, answer)) {
    const key = exportKey(space, filename);
    const link = await deps.downloads.publish(key, bytes, CONTENT_TYPES[format], filename, EXPORT_LINK_SECONDS);
    return linkAnswer(link, records.length, linkInBody);
  }
  return withinLimit(
    deps.maxAnswerBytes,
    answer,
    'export-too-large',
    (mb) =>
      `The export of ${records.length} runs is ${mb} MB${gzip ? ' compressed' : ''}, more than one answer can ` +
      `carry; narrow it with the filters or the search${acceptsGzip || format === 'parquet' ? '' : ', or accept gzip'}.`,
  );
}

const exportKey = (space: string, filename: string) => `${exportSpacePrefix(space)}${randomUUID()}/${filename}`;

/** The 303 to the export's short-lived link, or for a client that asked with `x-replay-download: link`, a 200. */
function linkAnswer(link: string, runs: number, linkInBody: boolean): HttpAnswer {
  const body = { link, expiresInSeconds: EXPORT_LINK_SECONDS, runs };
  return linkInBody
    ? { status: 200, body, headers: { [DOWNLOAD_LINK_HEADER]: 'link' } }
    : { status: 303, body, headers: { location: link } };
}

/**
 * The export written by the engine straight to the data bucket (DuckDB's COPY, Athena's SELECT or UNLOAD) and
 * answered with links whatever its size: the function holds no row. One object is answered as any large export
 * (its link); parts (Athena's UNLOAD) with a 200 listing a link to each, saying so in `x-replay-download: parts`.
 */
async function engineExport(
  deps: ReadDeps,
  space: string,
  { engine, view, outcome, asOf }: NonNullable<Awaited<ReturnType<typeof engineExportView>>>,
  format: ExportFormat,
  fields: readonly ExportField[],
  linkInBody: boolean,
): Promise<HttpAnswer> {
  const filename = `${space}-runs.${format}`;
  const prefix = `${exportSpacePrefix(space)}${randomUUID()}/`;
  const sql = exportRowsSql(engine, view, outcome, fields, format, deps.config.prices);
  const { runs, layout, keys } = await engine.exportTo(sql, format, { prefix, filename }, { outcome, asOf });
  if (layout === 'one') {
    const link = await deps.downloads!.link(keys[0]!, CONTENT_TYPES[format], filename, EXPORT_LINK_SECONDS);
    return linkAnswer(link, runs, linkInBody);
  }
  const [type, suffix] = format === 'json' ? ['application/gzip', 'jsonl.gz'] : [CONTENT_TYPES[format], format];
  const parts = await Promise.all(
    keys.map(async (key, i) => {
      const name = `${space}-runs-${i + 1}.${suffix}`;
      return { link: await deps.downloads!.link(key, type, name, EXPORT_LINK_SECONDS), filename: name };
    }),
  );
  const body: ExportPartsBody = { parts, expiresInSeconds: EXPORT_LINK_SECONDS, runs, outcome, asOf };
  return { status: 200, body, headers: { [DOWNLOAD_LINK_HEADER]: 'parts' } };
}

export const exportFormatOf = (collection: string): ExportFormat | null => {
  const match = /^export\.(\w+)$/.exec(collection);
  return match && (EXPORT_FORMATS as readonly string[]).includes(match[1]!) ? (match[1] as ExportFormat) : null;
};
