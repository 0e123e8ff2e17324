// A SELECT's answer as the query engine reads it (db/reads/select.ts): column names once, and
// where each column's cell sits in a row. Each driver's rows are kept as it built them.

/** A row as a driver gives it: an array of cells (better-sqlite3's raw mode) or an object keyed by column (mysql2, Knex). */
export type Cells = readonly unknown[] | Readonly<Record<string, unknown>>;

/**
 * Column names, the key of each column's cell in a row (`keys`: its index on SQLite, its
 * name on MySQL), and the rows.
 */
export interface Table {
  readonly columns: readonly string[];
  readonly keys: readonly (number | string)[];
  readonly rows: readonly Cells[];
}

/** The cell at `key` (a Table key) of a row. */
export const cellOf = (row: Cells, key: number | string): unknown => (row as Readonly<Record<number | string, unknown>>)[key];

/** The key of `column` in a table's rows; -1, which no row holds, when the table lacks it. */
export function keyOf(table: Table, column: string): number | string {
  const i = table.columns.indexOf(column);
  return i < 0 ? -1 : table.keys[i]!;
}

/** The first row's cell of `column`, as counts, aggregates and plans are read. */
export function firstCell(table: Table | undefined, column: string): unknown {
  const row = table?.rows[0];
  return row === undefined ? undefined : cellOf(row, keyOf(table!, column));
}

/** Rows that are objects keyed by column name, as a Table read by name. */
export function tableOfNamed(rows: readonly Cells[], columns: readonly string[]): Table {
  return { columns, keys: columns, rows };
}
