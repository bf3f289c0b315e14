// `npm run bench:athena-answers`: what the read function pays to read an Athena answer longer than a page
// (adapters/aws/athena-engine.ts): one GetObject of the CSV Athena wrote, then `rowsOfResultCsv` (csv-parse, the
// raw text of records with an empty field telling a null from a quoted empty text, then each value typed by its
// column), for answers shaped as `/pairs`' (a row per configuration and task; some repositories null, some
// empty texts). Floor in the same run: csv-parse reading the same bytes with no null told apart and no typing. The
// calls are counted beside it: a GetQueryResults page holds at most 1,000 rows. Medians of --repeats (5) after one
// warm-up. Options: --rows N,M (24000,120000) --repeats K (5) --memory (one size, read once, and the process's
// resident memory before and at its peak: what reading the answer adds, MAX_ANSWER_ROWS's measure)
import { parse } from 'csv-parse/sync';
import { parseArgs } from 'node:util';
import { rowsOfResultCsv } from '#adapters/aws/athena-engine.ts';
import { athenaResultCsv } from '../test/helpers/athena-stand-in.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '24000,120000' },
    repeats: { type: 'string', default: '5' },
    memory: { type: 'boolean' },
  },
});
const COLUMNS = [
  { Name: 'model', Type: 'varchar' },
  { Name: 'harness_version', Type: 'varchar' },
  { Name: 'task_id', Type: 'varchar' },
  { Name: 'n', Type: 'bigint' },
  { Name: 'c', Type: 'bigint' },
  { Name: 'repo', Type: 'varchar' },
];
/** An answer as Athena writes it (athenaResultCsv): a repository null or an empty text now and then. */
function answer(rows: number): string {
  function* cells() {
    for (let i = 0; i < rows; i++) {
      const repo = i % 7 === 0 ? undefined : i % 11 === 0 ? '' : `synthetic/repo-${i % 500}`;
      const model = `synthetic-model-${String(i % 12).padStart(2, '0')}`;
      const task = `synthetic__repo-${i % 500}-task-${String(Math.floor(i / 12)).padStart(6, '0')}`;
      yield [model, 'h1', task, '5', String(i % 6), repo];
    }
  }
  return athenaResultCsv(
    COLUMNS.map((c) => c.Name),
    cells(),
  );
}

const megabytes = (bytes: number) => Math.round(bytes / 1e6);

if (values.memory) {
  const rows = Number(values.rows.split(',')[0]);
  const text = answer(rows);
  const before = process.memoryUsage().rss;
  const read = rowsOfResultCsv(text, COLUMNS);
  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(
    `${read.length.toLocaleString('en-US')} rows (${(text.length / 1e6).toFixed(1)} MB of CSV): resident ` +
      `${megabytes(before)} MB before the read, ${megabytes(peak)} MB at the peak`,
  );
  process.exit(0);
}

function medianMs(work: () => unknown): number {
  work();
  const ms: number[] = [];
  for (let k = 0; k < Number(values.repeats); k++) {
    const t0 = performance.now();
    work();
    ms.push(performance.now() - t0);
  }
  return ms.sort((a, b) => a - b)[ms.length >> 1]!;
}

console.log(
  `${'rows'.padStart(9)}${'CSV MB'.padStart(9)}${'read'.padStart(10)}${'floor'.padStart(10)}${'× floor'.padStart(9)}  calls`,
);
for (const rows of values.rows.split(',').map(Number)) {
  const text = answer(rows);
  const read = medianMs(() => rowsOfResultCsv(text, COLUMNS));
  const floor = medianMs(() => parse(text, { from: 2 }));
  const pages = Math.ceil((rows + 1) / 1000);
  console.log(
    `${rows.toLocaleString('en-US').padStart(9)}${(text.length / 1e6).toFixed(1).padStart(9)}` +
      `${`${Math.round(read)} ms`.padStart(10)}${`${Math.round(floor)} ms`.padStart(10)}` +
      `${(read / floor).toFixed(2).padStart(8)}×  2 (a page, then the object), where paging takes ${pages}`,
  );
}
