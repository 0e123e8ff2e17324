// The two formats of an export (design.md §7, Exports). JSON Lines: one record per line, as
// the query's `results` hold it, then one last line that says how the export ended:
// `{"complete":true,"rows":N}`, or `{"complete":false,"rows":N,"after":"<cursor>",
// "responseStatus":{...}}` when it failed after it began. CSV: the query's CSV (design.md
// §2), header and rows, nothing more, so it opens as any CSV does; one that failed after it
// began ends without HTTP's last chunk, which every client reports as a body cut short.
import type { ApiError } from '../errors/api-error.js';
import type { FieldSpec } from '../query/catalog-types.js';
import type { QueryRecord } from '../query/records.js';
import { csvHeader, csvRows } from './csv.js';

export interface ExportFormat {
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
  /** What comes before the first row: the CSV header row. */
  readonly opening: string;
  rows(records: readonly QueryRecord[]): string;
  /** The last line of a complete export; empty for CSV. */
  complete(rows: number): string;
  /** The last line of an export that failed after it began; undefined where the format has none (CSV). */
  cut(rows: number, after: string | undefined, error: ApiError): string | undefined;
}

function jsonLines(): ExportFormat {
  return {
    contentType: 'application/x-ndjson',
    headers: {},
    opening: '',
    rows(records) {
      let text = '';
      for (const record of records) text += JSON.stringify(record) + '\n';
      return text;
    },
    complete: (rows) => JSON.stringify({ complete: true, rows }) + '\n',
    cut: (rows, after, error) =>
      JSON.stringify({ complete: false, rows, ...(after === undefined ? {} : { after }), responseStatus: { errorCode: error.code, message: error.message, errors: error.errors } }) + '\n',
  };
}

function csv(projection: readonly FieldSpec[], operation: string): ExportFormat {
  const columns = projection.map((f) => ({ name: f.name, family: f.family }));
  const properties = projection.map((f) => f.property);
  return {
    contentType: 'text/csv; charset=utf-8',
    headers: { 'Content-Disposition': `attachment; filename="${operation}.csv"` },
    opening: csvHeader({ columns }),
    rows: (records) => csvRows({ columns, properties, rows: records }),
    complete: () => '',
    cut: () => undefined,
  };
}

export function exportFormat(format: 'csv' | 'jsonl', projection: readonly FieldSpec[], operation: string): ExportFormat {
  return format === 'csv' ? csv(projection, operation) : jsonLines();
}
