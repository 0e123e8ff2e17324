// The version of each table the answers read (design.md §8, "Table versions"): one row per
// table in `table_versions`, moved by triggers after every INSERT, UPDATE and DELETE, so it
// changes whatever writes the table: the service, the loader, `db sql --write`, a migration,
// an operator's own SQL. The entity tags of the answers are built on it (src/http/entity-tag.ts).
import { partOf, perDatabase, type Database } from '../database.js';
import type { Dialect } from '../dialect.js';
import { translateDbError } from '../driver-errors.js';
import { prepare } from '../prepared.js';
import { cellOf, keyOf, selectRows, type Cells, type Table } from '../reads/select.js';

/** The tables whose rows an answer is made of: the two queries' and the installation files'. */
export const versionedTables = ['caratteristica_gruppo', 'soggetto_recapito', 'impianto', 'impianto_file'] as const;
export type VersionedTable = (typeof versionedTables)[number];

/**
 * The next version: one more than the last, and never behind the database's clock in
 * microseconds. A restored file or dump carries the versions of its time; writes after it
 * take the clock's, which is past every version the replaced database ever gave, so a
 * version never names two states of a table (design.md §8).
 */
export const nextVersion: Readonly<Record<Dialect, string>> = {
  // julianday, not unixepoch('subsec'): the sqlite3 shells operators write with may predate 3.42.
  sqlite: "max(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER))",
  mysql: 'GREATEST(version + 1, CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS UNSIGNED))',
};

/**
 * The session variable the MySQL triggers test: set, they skip their row's update. Only the
 * loader sets it, on its own connection, for its own transaction (table-versions-deferred.ts);
 * any other session's writes move the version row by row.
 */
export const deferredVariable = '@impianti_table_versions_deferred';

const events = [
  ['ai', 'INSERT'],
  ['au', 'UPDATE'],
  ['ad', 'DELETE'],
] as const;

/** The triggers' names on `table`, as the engines list them. */
export const triggerNames = (table: VersionedTable): string[] => events.map(([suffix]) => `tv_${table}_${suffix}`);

/** CREATE TRIGGER statements for `table`: each moves its version once per row written. */
export function triggerStatements(dialect: Dialect, table: VersionedTable): string[] {
  const bump = `UPDATE table_versions SET version = ${nextVersion[dialect]} WHERE table_name = '${table}'`;
  // On MySQL the loader defers the update to its commit by a session variable of its own
  // (table-versions-deferred.ts); on SQLite it drops the triggers inside its transaction.
  return events.map(([suffix, event]) =>
    dialect === 'mysql'
      ? `CREATE TRIGGER tv_${table}_${suffix} AFTER ${event} ON ${table} FOR EACH ROW IF ${deferredVariable} IS NULL THEN ${bump}; END IF`
      : `CREATE TRIGGER tv_${table}_${suffix} AFTER ${event} ON ${table} BEGIN ${bump}; END`,
  );
}

/** Moves the version of every table at once: after migrations and a restore, which triggers do not see whole. */
export async function bumpAllVersions(database: Database): Promise<void> {
  await database.knex.raw(`UPDATE table_versions SET version = ${nextVersion[database.dialect]}`);
}

/** Rendered once per database and table list, by Knex (db/prepared.ts). */
const versionStatements = perDatabase(() => new Map<string, (values: readonly unknown[]) => { sql: string; bindings: readonly unknown[] }>());

function statementFor(database: Database, tables: readonly string[]) {
  const byList = partOf(database, versionStatements);
  const key = tables.join(',');
  let statement = byList.get(key);
  if (statement === undefined) {
    const db = database.knex;
    // A lookup by primary key: one row per table, read from the primary key's index.
    statement = prepare(tables.length, (names) => db('table_versions').select('table_name', 'version').whereIn('table_name', [...names]).orderBy('table_name'));
    byList.set(key, statement);
  }
  return statement;
}

/**
 * The versions an answer's first statement read beside its rows (versionColumns): `seen:
 * false` when that statement returned no row, so nothing was read; `versions` undefined
 * when a table has no version row.
 */
export type VersionsSeen = { readonly seen: false } | { readonly seen: true; readonly versions: string | undefined };

export const versionsUnseen: VersionsSeen = Object.freeze({ seen: false });

/** The column a version is read into beside an answer's rows: no catalog column starts with `_`. */
const versionColumn = (table: string): string => `_version_${table}`;

/**
 * Columns that read the versions of `tables` in the statement of an answer's rows, as SQL
 * fragments (`?` values, `??` identifiers): one primary-key lookup each, evaluated once per
 * statement, and read in the same snapshot as the rows, which is what lets an answer's first
 * statement stand for the versions read before it (design.md §8, "Table versions").
 */
export function versionColumns(tables: readonly string[]): { readonly sql: string; readonly bindings: readonly string[] }[] {
  return [...tables].sort().map((table) => ({
    sql: '(SELECT ?? FROM ?? WHERE ?? = ?) AS ??',
    bindings: ['version', 'table_versions', 'table_name', table, versionColumn(table)],
  }));
}

/**
 * The versions of `tables` as readVersions gives them, read off a row of a statement that
 * carried versionColumns(tables); undefined when a table has no version row.
 */
export function versionsOfRow(tables: readonly string[], table: Table, row: Cells): string | undefined {
  const parts: string[] = [];
  for (const name of [...tables].sort()) {
    const version = cellOf(row, keyOf(table, versionColumn(name)));
    if (version === null || version === undefined) return undefined;
    parts.push(`${name}=${String(version)}`);
  }
  return parts.join(';');
}

/**
 * The versions of `tables` as one text (`soggetto_recapito=17...`), read where the answer's
 * rows are read (the same database, before them: design.md §8); undefined when a table has
 * no version row, whose answers then go untagged rather than under a tag no write moves.
 */
export async function readVersions(database: Database, tables: readonly string[], timeoutMs?: number): Promise<string | undefined> {
  const { sql, bindings } = statementFor(database, tables)(tables);
  let rows: Array<{ table_name: string; version: number | string | bigint }>;
  try {
    rows = await selectRows(database, sql, bindings, timeoutMs);
  } catch (err) {
    // As every read of an answer: 503 or a generic 500, never the driver's text.
    throw translateDbError(err);
  }
  if (rows.length !== tables.length) return undefined;
  return rows.map((r) => `${r.table_name}=${String(r.version)}`).join(';');
}
