// The SQL every engine runs over the run dataset (run-dataset.ts): DuckDB in local mode, Athena in AWS, the same
// text for both (row_number, no engine's own dialect), so the two paths cannot count differently. Each query
// keeps each run as its last-written part has it, as the table keeps its row, and counts as shared/analytics/run-counts.ts does:
// tests: n is pass + fail, resolved is pass; judge: n is resolved, partial, wrong and no_change; flagged is a
// "resolved" a rule withheld (judgeState flagged, no verdict).
import type { AnalyticsEngine } from '../ports.ts';

export interface ConfigurationCounts {
  model: string;
  harnessVersion: string;
  runs: number;
  tests: { n: number; resolved: number };
  judge: { n: number; resolved: number };
  flagged: number;
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Each run of the space once, as its last-written part has it. */
export const latestRunsSql = (engine: AnalyticsEngine, space: string): string =>
  `SELECT * FROM (
     SELECT *, row_number() OVER (PARTITION BY id ORDER BY writtenAt DESC) AS landing
     FROM ${engine.runDataset} WHERE space = ${literal(encodeURIComponent(space))}
   ) AS runs WHERE landing = 1`;

export const configurationCountsSql = (engine: AnalyticsEngine, space: string): string =>
  `SELECT model, harnessVersion,
     count(*) AS runs,
     count_if(hiddenTestStatus IN ('pass', 'fail')) AS tests_n,
     count_if(hiddenTestStatus = 'pass') AS tests_resolved,
     count_if(judgeVerdict IN ('resolved', 'partial', 'wrong', 'no_change')) AS judge_n,
     count_if(judgeVerdict = 'resolved') AS judge_resolved,
     count_if(judgeState = 'flagged') AS flagged
   FROM (${latestRunsSql(engine, space)}) AS latest
   GROUP BY model, harnessVersion
   ORDER BY model, harnessVersion`;

/** The counts of each configuration (model and harness version) in a space, by the engine. */
export async function configurationCounts(engine: AnalyticsEngine, space: string): Promise<ConfigurationCounts[]> {
  const rows = await engine.rows(configurationCountsSql(engine, space));
  return rows.map((row) => ({
    model: String(row['model']),
    harnessVersion: String(row['harnessVersion']),
    runs: Number(row['runs']),
    tests: { n: Number(row['tests_n']), resolved: Number(row['tests_resolved']) },
    judge: { n: Number(row['judge_n']), resolved: Number(row['judge_resolved']) },
    flagged: Number(row['flagged']),
  }));
}
