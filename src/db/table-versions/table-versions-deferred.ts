// Bulk writes move a table's version once, not once per row (design.md §8, "Table
// versions"): per-row triggers cost the loader and the bulk seed 30-40 % of their rate. The version
// still moves inside the load's own transaction, before its commit, so no reader ever sees
// the new rows under the old version.
import type Database from 'better-sqlite3';
import type { Knex } from 'knex';
import { triggersOff, triggersOffIn } from '../sqlite-file/sqlite-triggers-off.js';
import { deferredVariable, nextVersion, triggerNames, versionedTables, type VersionedTable } from './table-versions.js';
import type { Dialect } from '../dialect.js';

const isVersioned = (table: string): table is VersionedTable => (versionedTables as readonly string[]).includes(table);

/** The statement that moves `table`'s version once. */
export const bumpOne = (dialect: Dialect, table: VersionedTable): string =>
  `UPDATE table_versions SET version = ${nextVersion[dialect]} WHERE table_name = '${table}'`;

/**
 * Inside the load's IMMEDIATE transaction on SQLite: drops `table`'s version triggers (DDL
 * is transactional there, so a rollback brings them back) and returns what, before the
 * commit, creates them again as they were and moves the version once.
 */
export function deferSqliteVersions(conn: Database.Database, table: string): () => void {
  if (!isVersioned(table)) return () => undefined;
  const restore = triggersOff(conn, triggerNames(table));
  return () => {
    restore();
    conn.exec(bumpOne('sqlite', table));
  };
}

/** On MySQL: the statements that open and close a deferred load of `table`, on its connection. */
export function mysqlDeferral(table: string): { readonly start: string[]; readonly beforeCommit: string[]; readonly reset: string[] } {
  if (!isVersioned(table)) return { start: [], beforeCommit: [], reset: [] };
  const reset = [`SET ${deferredVariable} = NULL`];
  return { start: [`SET ${deferredVariable} = 1`], beforeCommit: [bumpOne('mysql', table), ...reset], reset };
}

/**
 * Moves every version in a database `conn` is about to become (a restored copy, before it
 * takes the live name): its versions are those of its time, and a tag given before the
 * restore must never match after it (design.md §8). A file from before the versions
 * existed has none to move: the migration that creates them starts them at the clock.
 */
export function bumpRestoredVersions(conn: Database.Database): void {
  const present = conn.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'table_versions'").get() !== undefined;
  if (present) conn.exec(`UPDATE table_versions SET version = ${nextVersion.sqlite}`);
}

/**
 * `work`'s writes to `table` inside the Knex transaction `trx` on a `dialect` database, with the table's version
 * moved once before the transaction commits rather than once per row: the bulk seed's way
 * (src/db/seed-bulk.ts), as the loader's above.
 */
export async function withVersionMovedOnce<T>(trx: Knex.Transaction, dialect: Dialect, table: string, work: () => Promise<T>): Promise<T> {
  if (!isVersioned(table)) return work();
  if (dialect === 'mysql') {
    await trx.raw(`SET ${deferredVariable} = 1`);
    try {
      const value = await work();
      await trx.raw(bumpOne('mysql', table));
      return value;
    } finally {
      // The connection goes back to the pool: its later writes must move the version again.
      await trx.raw(`SET ${deferredVariable} = NULL`);
    }
  }
  const restore = await triggersOffIn(trx, triggerNames(table));
  const value = await work();
  await restore();
  await trx.raw(bumpOne('sqlite', table));
  return value;
}
