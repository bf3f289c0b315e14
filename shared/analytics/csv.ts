// CSV as the exports and the cards' downloads write it (docs/contract.md §6): RFC 4180 with a header row and CRLF
// line ends; null is an empty cell; a cell starting with =, +, -, @, TAB or CR gets a leading ' so a spreadsheet
// shows it as text instead of running it as a formula (a model name is whatever a runner sent).
export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvText(columns: readonly string[], rows: Iterable<readonly CsvValue[]>): string {
  const lines = [columns.map(csvCell).join(',')];
  for (const row of rows) lines.push(row.map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
