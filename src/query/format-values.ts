// Database values -> response values. Drivers differ (mysql2 gives BIGINT and DECIMAL as
// strings with bigNumberStrings, TINYINT(1) as 0/1; better-sqlite3 gives numbers), so
// each family is normalised here: records get numbers and true/false, meta gets strings.
import { cellOf, keyOf, type Cells, type Table } from '../db/reads/select.js';
import type { Family, FieldSpec } from './catalog-types.js';
import type { AggregateFn } from './plan-types.js';
import type { FamilyValues, QueryRecord } from './records.js';

const toBigInt = (v: unknown): bigint => (typeof v === 'bigint' ? v : BigInt(typeof v === 'number' ? Math.trunc(v) : String(v)));

const recordValue: { readonly [F in Family]: (v: unknown) => FamilyValues[F] } = {
  integer: (v) => Number(v),
  string: (v) => String(v),
  boolean: (v) => Number(v) !== 0,
};

/** Where each projected field's cell sits in a table's rows (keyOf its column). */
export function keysOf(table: Table, projection: readonly FieldSpec[]): (number | string)[] {
  return projection.map((f) => keyOf(table, f.column));
}

/**
 * A row -> a record with camelCase properties; NULL columns are left out (design.md §1).
 * `keys` is keysOf the row's table.
 */
export function recordOf(row: Cells, projection: readonly FieldSpec[], keys: readonly (number | string)[]): QueryRecord {
  const record: Record<string, FamilyValues[Family]> = {};
  for (let i = 0; i < projection.length; i++) {
    const f = projection[i]!;
    const v = cellOf(row, keys[i]!);
    if (v === null || v === undefined) continue;
    // The drivers mostly deliver the family's own type already (INT as a number, text as a
    // string): then there is nothing to convert, and this runs for every cell of a page.
    const typed = f.family === 'integer' ? typeof v === 'number' : f.family === 'string' && typeof v === 'string';
    record[f.property] = typed ? (v as FamilyValues['integer' | 'string']) : recordValue[f.family](v);
  }
  return record;
}

const metaValue: Record<Family, (v: unknown) => string> = {
  integer: (v) => toBigInt(v).toString(),
  string: (v) => String(v),
  boolean: (v) => (Number(v) !== 0 ? 'true' : 'false'),
};

const present = (v: unknown): boolean => v !== null && v !== undefined;

/** sum / count rounded half away from zero to 4 decimals, trailing zeros dropped: 25/2 -> "12.5". */
export function formatAverage(sum: bigint, count: bigint): string {
  const negative = sum < 0n;
  const scaled = ((negative ? -sum : sum) * 20000n + count) / (2n * count);
  const fraction = (scaled % 10000n).toString().padStart(4, '0').replace(/0+$/, '');
  const text = `${scaled / 10000n}${fraction ? `.${fraction}` : ''}`;
  return negative && scaled !== 0n ? `-${text}` : text;
}

type MetaFormatter = (values: readonly unknown[], field: FieldSpec | undefined) => string | undefined;

const asField: MetaFormatter = ([v], field) => (present(v) ? metaValue[field?.family ?? 'integer'](v) : undefined);
const asCount: MetaFormatter = ([v]) => toBigInt(v ?? 0).toString();

/** The meta string of each aggregate from the values its SQL produced; undefined leaves the key out. */
export const metaFormatters: Record<AggregateFn, MetaFormatter> = {
  count: asCount,
  countDistinct: asCount,
  min: asField,
  max: asField,
  first: asField,
  last: asField,
  sum: asField,
  avg: ([sum, count]) => (present(sum) && present(count) && toBigInt(count) > 0n ? formatAverage(toBigInt(sum), toBigInt(count)) : undefined),
};

/** A cell as a cursor keeps it (cursor.ts): numbers and text as they are, NULL as null, booleans as 0/1. */
export function cursorValue(v: unknown): number | string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return Number(v);
  return String(v);
}
