// A double's text in an engine's CSV export, laid out as JavaScript prints the number (csv.ts writes the in-memory
// export with it): run by DuckDB on its own texts of many magnitudes, and on Trino's (Java's Double.toString) as
// Athena would give them, hand-worked, since the stand-in runs DuckDB and never produces them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { jsNumberTextSql } from '#core/read/engine-queries.ts';

let connection: DuckDBConnection;

beforeAll(async () => {
  connection = await (await DuckDBInstance.create(':memory:')).connect();
});

afterAll(() => connection?.closeSync());

const laidOut = async (text: string) =>
  String((await connection.runAndReadAll(`SELECT ${jsNumberTextSql(text)}`)).getRows()[0]![0]);

describe('a double printed as JavaScript prints it', () => {
  it.each([
    0.000015,
    -0.000015,
    0.0001234,
    0.000001,
    1e-7,
    1.5e-7,
    2.5e-300,
    0.001,
    0.1,
    1 / 7,
    0.3 + 0.6,
    12345678.5,
    123456789012.25,
    1e15 + 0.5,
    1e20,
    1e21,
    1.5e22,
    -3.25e-9,
  ])("from DuckDB's text of %p", async (value) => {
    expect(await laidOut(`CAST(CAST('${value}' AS DOUBLE) AS VARCHAR)`)).toBe(String(value));
  });

  it('leaves null null', async () => {
    const rows = await connection.runAndReadAll(`SELECT ${jsNumberTextSql('CAST(NULL AS VARCHAR)')} AS text`);
    expect(rows.getRows()[0]![0]).toBeNull();
  });

  it.each([
    ['1.5E-5', '0.000015'],
    ['-1.5E-5', '-0.000015'],
    ['1.0E-6', '0.000001'],
    ['1.0E-7', '1e-7'],
    ['1.234E-4', '0.0001234'],
    ['1.0E7', '10000000'],
    ['1.23456785E7', '12345678.5'],
    ['1.2345678901225E11', '123456789012.25'],
    ['1.0E21', '1e+21'],
    ['1.5E22', '1.5e+22'],
    ['0.14285714285714285', '0.14285714285714285'],
  ])("from Trino's text %s", async (text, printed) => {
    expect(await laidOut(`'${text}'`)).toBe(printed);
  });
});
