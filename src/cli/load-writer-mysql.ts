// The MySQL/MariaDB bulk path of `npm run load`, in one transaction on one connection, by
// either of the two forms the driver offers (design.md §8 says why `insert` is the default):
// - `insert`: multi-row INSERTs of a batch each, sized well under max_allowed_packet;
// - `infile`: LOAD DATA LOCAL INFILE of a batch each, streamed from memory as tab-separated
//   text. With LOCAL the server turns a refused row into a warning and goes on (MariaDB KB,
//   LOAD DATA INFILE: "IGNORE is implied"), so each batch runs after a savepoint and any
//   warning, or a row short, rolls the batch back to it.
// A refused batch is then written again row by row, whose first refusal names the line.
import { Readable } from 'node:stream';
import type { Database } from '../db/database.js';
import { bulkConnection } from '../db/connect.js';
import { mysqlDeferral } from '../db/table-versions/table-versions-deferred.js';
import { mysqlTrigramDeferral, type FillRange } from '../db/substring-index/substring-index-deferred.js';
import { indexesOf } from '../db/substring-index/substring-index.js';
import type { LoadProblem } from './load-problem.js';
import type { LoadRow } from './load-rows.js';
import { refusal, type BulkWriter, type Target } from './load-writer.js';

export type MysqlVia = 'insert' | 'infile';

interface QueryResult {
  readonly affectedRows?: number;
  readonly warningStatus?: number;
}
interface MysqlConnection {
  query(options: string | { sql: string; infileStreamFactory?: () => Readable }, cb: (err: Error | null, result: unknown) => void): void;
  format(sql: string, values: unknown[]): string;
}

export async function mysqlWriter(db: Database, { table, columns }: Target, via: MysqlVia): Promise<BulkWriter> {
  const bulk = await bulkConnection(db);
  if (bulk.dialect !== 'mysql') throw new Error('mysqlWriter: not a MySQL database');
  const conn: MysqlConnection = bulk.conn;
  const query = <T = QueryResult>(sql: Parameters<MysqlConnection['query']>[0]) =>
    new Promise<T>((resolve, reject) => conn.query(sql, (err, result) => (err ? reject(err) : resolve(result as T))));
  const packet = (await query<Array<{ packet: number | string }>>('SELECT @@max_allowed_packet AS packet'))[0]?.packet ?? 4 * 1024 * 1024;
  await query('START TRANSACTION');
  // FOR UPDATE: on an empty table it holds off other inserts until the commit, so the table stays the load's own.
  const empty = (await query<unknown[]>(`SELECT 1 FROM \`${table}\` LIMIT 1 FOR UPDATE`)).length === 0;
  // The table's version moves once, before the commit, not once per row (design.md §8), and
  // the trigram index is filled by one statement before it too: into an empty table by sorting,
  // into one with rows for the ids the load wrote (its triggers' row-by-row writes are also what
  // MariaDB 10.11 cannot roll back when the disk fills: the server stops).
  const versions = mysqlDeferral(table);
  const lastId = async () => Number((await query<Array<{ m: number | null }>>(`SELECT MAX(id) AS m FROM \`${table}\``))[0]?.m ?? 0);
  const idsBefore = empty ? 0 : await lastId();
  const trigrams = mysqlTrigramDeferral(table);
  /** The ids the load wrote: explicit ones, and the new ones past the table's last id. */
  let lowestWritten = Number.POSITIVE_INFINITY;
  const filledRange = async (): Promise<FillRange> => (empty ? 'all' : { from: Math.min(lowestWritten, idsBefore + 1), to: await lastId() });
  // Grams a TRUNCATE of the table left behind; an index with none stays untouched, so its fill can sort.
  for (const { index } of empty ? indexesOf(table) : []) {
    if ((await query<unknown[]>(`SELECT 1 FROM \`${index}\` LIMIT 1`)).length > 0) await query(`DELETE FROM \`${index}\``);
  }
  for (const statement of [...versions.start, ...trigrams.start]) await query(statement);
  // Table and column names come from loadableTables, never from the file.
  const names = columns.map((c) => `\`${c.name}\``).join(', ');
  const insertHead = `INSERT INTO \`${table}\` (${names}) VALUES `;
  const loadSql = `LOAD DATA LOCAL INFILE 'rows.tsv' INTO TABLE \`${table}\` CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' (${names})`;
  const idAt = columns.findIndex((c) => c.name === 'id');
  const committed = async (id: number) => (await db.knex(table).where({ id }).first('id')) !== undefined;
  let open = true;
  const release = async () => {
    if (open) { open = false; await new Promise<void>((resolve) => bulk.conn.end(() => resolve())); }
  };

  const { writeInsert, writeInfile } = batchWriters({ query, conn, insertHead, loadSql, idAt, committed });

  return {
    // A statement of 1 MiB loads as fast as larger ones (the server's index upkeep sets the
    // pace) and keeps two batches, the one written and the one read, small in memory.
    batchRows: 10_000,
    batchBytes: Math.min(Number(packet) / 2, 1024 * 1024),
    deferredIndexes: 0,
    write(rows) {
      for (const row of rows) {
        const id = row.values[idAt];
        if (typeof id === 'number' && id < lowestWritten) lowestWritten = id;
      }
      return via === 'infile' ? writeInfile(rows) : writeInsert(rows);
    },
    async commit(lastLine: number) {
      try {
        for (const { sql, bindings } of trigrams.beforeCommit(await filledRange())) await query(conn.format(sql, bindings));
        for (const statement of versions.beforeCommit) await query(statement);
        await query('COMMIT');
        await release();
        return undefined;
      } catch (err) {
        return refusal(err, lastLine, undefined, committed);
      }
    },
    async rollback() {
      if (!open) return;
      await query('ROLLBACK').catch(() => undefined);
      for (const statement of [...versions.reset, ...trigrams.reset]) await query(statement).catch(() => undefined);
      await release();
    },
  };
}

interface Batch {
  readonly query: <T = QueryResult>(sql: Parameters<MysqlConnection['query']>[0]) => Promise<T>;
  readonly conn: MysqlConnection;
  readonly insertHead: string;
  readonly loadSql: string;
  readonly idAt: number;
  readonly committed: (id: number) => Promise<boolean>;
}

/** A batch written by either form; a refused batch written again row by row to name its line. */
function batchWriters({ query, conn, insertHead, loadSql, idAt, committed }: Batch) {
  /** The first row of `rows` the server refuses on its own, as the problem on its line. */
  const locate = async (rows: readonly LoadRow[], err: unknown): Promise<LoadProblem> => {
    for (const row of rows) {
      try {
        await query(conn.format(`${insertHead}(?)`, [row.values]));
      } catch (rowErr) {
        return refusal(rowErr, row.line, row.values[idAt], committed);
      }
    }
    return refusal(err, rows[0]?.line ?? 0, undefined, committed);
  };

  const writeInsert = async (rows: readonly LoadRow[]) => {
    try {
      await query(conn.format(`${insertHead}?`, [rows.map((r) => r.values)]));
      return undefined;
    } catch (err) {
      if ((err as { fatal?: boolean }).fatal) return refusal(err, rows[0]?.line ?? 0, undefined, committed);
      return locate(rows, err);
    }
  };

  const writeInfile = async (rows: readonly LoadRow[]) => {
    try {
      await query('SAVEPOINT batch');
      const result = await query({ sql: loadSql, infileStreamFactory: () => Readable.from([Buffer.from(tsv(rows))]) });
      if ((result.warningStatus ?? 0) === 0 && result.affectedRows === rows.length) return undefined;
      await query('ROLLBACK TO SAVEPOINT batch');
      return locate(rows, new Error('LOAD DATA warned'));
    } catch (err) {
      return refusal(err, rows[0]?.line ?? 0, undefined, committed);
    }
  };
  return { writeInsert, writeInfile };
}

/** LOAD DATA's default text form: tab between fields, \N for NULL, backslash escapes. */
function tsv(rows: readonly LoadRow[]): string {
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.values.length; i++) {
      const v = row.values[i];
      if (i > 0) text += '\t';
      text += v === null || v === undefined ? '\\N' : typeof v === 'string' ? escapeText(v) : typeof v === 'boolean' ? (v ? '1' : '0') : v instanceof Date ? v.toISOString().slice(0, 23).replace('T', ' ') : String(v);
    }
    text += '\n';
  }
  return text;
}

const special = /[\\\t\n\r\0]/g;
const hasSpecial = /[\\\t\n\r\0]/;
const escapes: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' };
const escapeText = (s: string) => (hasSpecial.test(s) ? s.replace(special, (c) => escapes[c]!) : s);
