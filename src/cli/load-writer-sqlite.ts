// The SQLite bulk path of `npm run load`: one prepared INSERT run per row inside one
// IMMEDIATE transaction on a connection of its own (db/connect.ts bulkConnection), so the refused row is known exactly. Into
// an empty table the non-unique indexes are dropped first and built again before the commit:
// SQLite builds an index by sorting faster than it maintains it row by row (the fold()
// indexes call back into JavaScript for every row either way). DDL is transactional in
// SQLite, so a rollback brings the indexes back with the table as it was.
import type Sqlite from 'better-sqlite3';
import type { Database } from '../db/database.js';
import { bulkConnection, sqliteReaderOf } from '../db/connect.js';
import { deferSqliteVersions } from '../db/table-versions/table-versions-deferred.js';
import { deferSqliteTrigrams } from '../db/substring-index/substring-index-deferred.js';
import type { LoadProblem } from './load-problem.js';
import type { LoadRow } from './load-rows.js';
import { refusal, type BulkWriter, type Target } from './load-writer.js';

interface IndexInfo {
  readonly name: string;
  readonly sql: string;
}

export async function sqliteWriter(db: Database, { table, columns }: Target): Promise<BulkWriter> {
  const bulk = await bulkConnection(db);
  if (bulk.dialect !== 'sqlite') throw new Error('sqliteWriter: not a SQLite database');
  const conn = bulk.conn;
  // Table and column names come from loadableTables, never from the file.
  conn.exec('BEGIN IMMEDIATE');
  // Inside the write lock: no other connection can fill the table between the look and the load.
  const empty = conn.prepare(`SELECT 1 FROM "${table}" LIMIT 1`).get() === undefined;
  const versionsMoved = deferSqliteVersions(conn, table);
  // Into an empty table the trigram index is filled in one statement at the end, like the indexes below.
  const trigramsFilled = empty ? deferSqliteTrigrams(conn, table, 'all') : () => undefined;
  const deferred: IndexInfo[] = empty ? secondaryIndexes(conn, table) : [];
  for (const index of deferred) conn.exec(`DROP INDEX "${index.name}"`);
  const insert = conn.prepare(`INSERT INTO "${table}" (${columns.map((c) => `"${c.name}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  const idAt = columns.findIndex((c) => c.name === 'id');
  const committed = async (id: number) => {
    const reader = sqliteReaderOf(db);
    return reader !== undefined && reader.prepare(`SELECT 1 FROM "${table}" WHERE id = ?`).get(id) !== undefined;
  };
  let open = true;
  const release = async () => {
    if (open) { open = false; conn.close(); }
  };

  return {
    batchRows: 2000,
    batchBytes: 4 * 1024 * 1024,
    deferredIndexes: deferred.length,
    async write(rows: readonly LoadRow[]): Promise<LoadProblem | undefined> {
      for (const row of rows) {
        try {
          insert.run(row.values.map(bindable));
        } catch (err) {
          return refusal(err, row.line, row.values[idAt], committed);
        }
      }
      return undefined;
    },
    async commit(lastLine: number): Promise<LoadProblem | undefined> {
      try {
        for (const index of deferred) conn.exec(index.sql);
        trigramsFilled();
        versionsMoved();
        conn.exec('COMMIT');
        await release();
        return undefined;
      } catch (err) {
        return refusal(err, lastLine, undefined, committed);
      }
    },
    async rollback(): Promise<void> {
      if (open && conn.inTransaction) conn.exec('ROLLBACK');
      await release();
    },
  };
}

/** The table's indexes that no constraint needs: a UNIQUE one must keep refusing duplicates. */
function secondaryIndexes(conn: Sqlite.Database, table: string): IndexInfo[] {
  const unique = new Set((conn.pragma(`index_list("${table}")`) as Array<{ name: string; unique: number }>).filter((i) => i.unique).map((i) => i.name));
  return (conn.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").all(table) as IndexInfo[]).filter((i) => !unique.has(i.name));
}

/** better-sqlite3 binds numbers, strings and null; knex stores dates as epoch milliseconds and booleans as 0/1. */
const bindable = (v: unknown) => (v instanceof Date ? v.getTime() : typeof v === 'boolean' ? (v ? 1 : 0) : v);
