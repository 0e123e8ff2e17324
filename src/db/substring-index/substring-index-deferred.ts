// Bulk writes fill the trigram index once per transaction, set-based, rather than row by row
// through its triggers (design.md §8, "Substring index"): the grams of a batch go in sorted
// by one statement, inside the batch's own transaction, so no reader ever sees its rows
// without their grams.
import type Database from 'better-sqlite3';
import type { Knex } from 'knex';
import type { Dialect } from '../dialect.js';
import { triggersOff, triggersOffIn } from '../sqlite-file/sqlite-triggers-off.js';
import { fillStatement, indexesOf, substringIndexes, trigramsDeferredVariable, trigramTriggerNames, type SubstringIndex } from './substring-index.js';

/** Which rows a fill covers: every row, or the ids from..to. */
export type FillRange = 'all' | { readonly from: number; readonly to: number };

/** The statements (and bindings) that fill `table`'s indexes (among `indexes`) for `range`. */
export function fillStatements(dialect: Dialect, table: string, range: FillRange, indexes: readonly SubstringIndex[] = substringIndexes): Array<{ sql: string; bindings: number[] }> {
  return indexesOf(table, indexes).map((s) => {
    const sql = fillStatement(dialect, s);
    if (range === 'all') return { sql, bindings: [] };
    if (dialect === 'sqlite') return { sql: `${sql} AND id BETWEEN ? AND ?`, bindings: [range.from, range.to] };
    // IGNORE: a range may hold rows that were there before, whose grams are there already.
    return { sql: `${sql.replace(/^INSERT INTO/, 'INSERT IGNORE INTO')} WHERE t.id BETWEEN ? AND ?`, bindings: [range.from, range.to] };
  });
}

/**
 * Inside a SQLite transaction on `conn`: drops `table`'s trigram triggers (DDL is
 * transactional there) and returns what, before the commit, fills the index for `range` and
 * creates them again as they were.
 */
export function deferSqliteTrigrams(conn: Database.Database, table: string, range: FillRange): () => void {
  const names = indexesOf(table).flatMap(trigramTriggerNames);
  if (names.length === 0) return () => undefined;
  const restore = triggersOff(conn, names);
  return () => {
    for (const { sql, bindings } of fillStatements('sqlite', table, range)) conn.prepare(sql).run(...bindings);
    restore();
  };
}

/**
 * Around the fill of a whole, empty index on MySQL: with the checks off, InnoDB builds an
 * empty table's indexes by sorting the transaction's rows (MariaDB 10.6+), where row by row
 * it writes a B-tree far larger than the buffer pool at random places (measured on a 128 MB
 * pool: 100k rows 8 s against 13; at 1M rows 85–100 s sorted against 15 minutes). The rows are unique as built
 * (substring-index.ts: the position is in the key) and the table has no foreign keys.
 */
const sortedBuild = {
  before: 'SET @impianti_unique_checks = @@unique_checks, @impianti_foreign_key_checks = @@foreign_key_checks, unique_checks = 0, foreign_key_checks = 0',
  // Also where `before` never ran (a failed load's reset): the settings then stay as they are.
  after:
    'SET unique_checks = COALESCE(@impianti_unique_checks, @@unique_checks), foreign_key_checks = COALESCE(@impianti_foreign_key_checks, @@foreign_key_checks), ' +
    '@impianti_unique_checks = NULL, @impianti_foreign_key_checks = NULL',
};

type Statement = { sql: string; bindings: number[] };

/**
 * On MySQL: the statements that open and close a load of `table` whose grams one statement
 * fills. The range is asked at the commit, when the load knows the ids it wrote; `reset`
 * restores the checks a sorted build turned off, and leaves them as they are where none did.
 */
export interface MysqlTrigramDeferral {
  readonly start: readonly string[];
  beforeCommit(range: FillRange): Statement[];
  readonly reset: readonly string[];
}

export function mysqlTrigramDeferral(table: string, indexes: readonly SubstringIndex[] = substringIndexes): MysqlTrigramDeferral {
  if (indexesOf(table, indexes).length === 0) return { start: [], beforeCommit: () => [], reset: [] };
  const reset = [`SET ${trigramsDeferredVariable} = NULL`, sortedBuild.after];
  const plain = (sql: string): Statement => ({ sql, bindings: [] });
  return {
    start: [`SET ${trigramsDeferredVariable} = 1`],
    beforeCommit: (range) => [...(range === 'all' ? [plain(sortedBuild.before)] : []), ...fillStatements('mysql', table, range, indexes), ...reset.map(plain)],
    reset,
  };
}

/** `work`'s writes of the ids `range` to `table` inside the Knex transaction `trx` on a `dialect` database, their grams filled by one statement per index before the commit. */
export async function withTrigramsFilled<T>(trx: Knex.Transaction, dialect: Dialect, table: string, range: FillRange, work: () => Promise<T>): Promise<T> {
  if (indexesOf(table).length === 0) return work();
  if (dialect === 'mysql') {
    const { start, beforeCommit, reset } = mysqlTrigramDeferral(table);
    for (const sql of start) await trx.raw(sql);
    try {
      const value = await work();
      for (const s of beforeCommit(range)) await trx.raw(s.sql, s.bindings);
      return value;
    } finally {
      // The connection goes back to the pool: its later writes must keep the index row by row again.
      for (const sql of reset) await trx.raw(sql);
    }
  }
  const restore = await triggersOffIn(trx, indexesOf(table).flatMap(trigramTriggerNames));
  const value = await work();
  for (const { sql, bindings } of fillStatements('sqlite', table, range)) await trx.raw(sql, bindings);
  await restore();
  return value;
}
