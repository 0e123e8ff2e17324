// Writes a query's results as RFC 4180 CSV (design.md §2): header row of PascalCase
// field names, CRLF line ends, quoting where needed, booleans true/false, nulls empty.
// String cells that a spreadsheet would run as a formula get a leading apostrophe
// (OWASP "CSV injection"); number cells never do, so -5 stays a number.
import type { CsvTable } from './operation.js';

const formulaStart = /^[=+\-@\t\r]/;

export function toCsv(table: CsvTable): string {
  return csvHeader(table) + csvRows(table);
}

/** The header row, CRLF ended: an export writes it once, then its pages' rows. */
export function csvHeader(table: Pick<CsvTable, 'columns'>): string {
  return table.columns.map((c) => quote(c.name)).join(',') + '\r\n';
}

/** The rows, each CRLF ended; the empty string for none. */
export function csvRows(table: CsvTable): string {
  let text = '';
  for (const row of table.rows) {
    text += table.properties.map((p, i) => cell(row[p], table.columns[i]!.family)).join(',') + '\r\n';
  }
  return text;
}

function cell(value: unknown, family: 'integer' | 'string' | 'boolean'): string {
  if (value === null || value === undefined) return '';
  if (family !== 'string') return String(value);
  const text = String(value);
  return quote(formulaStart.test(text) ? `'${text}` : text);
}

function quote(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
