// `npm run bench:athena-answers`: what the read function pays to read an Athena answer longer than a page
// (adapters/aws/athena-engine.ts): one GetObject of the CSV Athena wrote, then `rowsOfResultCsv` (csv-parse with a
// cast that tells a null from an empty text, then each value typed by its column), for answers shaped as
// `/pairs`' (a row per configuration and task). Floor in the same run: csv-parse reading the same bytes with no
// cast and no typing. The calls are counted beside it: a GetQueryResults page holds at most 1,000 rows.
// Medians of --repeats (5) after one warm-up. Options: --rows N,M (24000,120000) --repeats K (5)
import { parse } from 'csv-parse/sync';
import { parseArgs } from 'node:util';
import { rowsOfResultCsv } from '#adapters/aws/athena-engine.ts';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '24000,120000' }, repeats: { type: 'string', default: '5' } },
});
const COLUMNS = [
  { Name: 'model', Type: 'varchar' },
  { Name: 'harness_version', Type: 'varchar' },
  { Name: 'task_id', Type: 'varchar' },
  { Name: 'n', Type: 'bigint' },
  { Name: 'c', Type: 'bigint' },
  { Name: 'repo', Type: 'varchar' },
];
const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** An answer as Athena writes it: the header, then every value quoted; every seventh task's repository null. */
function answer(rows: number): string {
  const lines = [COLUMNS.map((c) => quoted(c.Name)).join(',')];
  for (let i = 0; i < rows; i++) {
    const repo = i % 7 === 0 ? '' : quoted(`synthetic/repo-${i % 500}`);
    const model = `synthetic-model-${String(i % 12).padStart(2, '0')}`;
    const task = `synthetic__repo-${i % 500}-task-${String(Math.floor(i / 12)).padStart(6, '0')}`;
    lines.push([quoted(model), quoted('h1'), quoted(task), quoted('5'), quoted(String(i % 6)), repo].join(','));
  }
  return `${lines.join('\n')}\n`;
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
