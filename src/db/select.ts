// The read path's one way to run a SELECT whose text Knex already rendered (db/prepared.ts,
// query/statements.ts): a connection from Knex's own pool, the driver's call, the
// connection back. Knex's runner around a query (its query object, events, response
// processing and timeout race) costs as much CPU per request as the rest of a cheap
// lookup, for statements whose text and
// bindings are final. Knex stays the builder and the pool; writes keep going through it.
// A query of several statements runs them all on one connection (selectTogether).
//
// MySQL runs them as prepared statements (mysql2's `execute`, each text prepared once per
// connection and kept in the driver's bounded cache, connect.ts): the server parses a text
// once instead of on every request, and the values travel apart from it: that saves
// MariaDB 15-25 µs of CPU per statement against client-side formatting, for the same CPU
// in Node.
//
// Time limit: the serving pool's sessions carry QUERY_TIMEOUT_MS as the server's own
// statement limit (connect.ts: max_statement_time on MariaDB, max_execution_time on MySQL),
// so the server ends a statement that runs too long and the driver's error answers 503
// QueryTimeout. A grace second later the client gives up on the statement itself, in case
// the server never answers at all (statement-deadline.ts): the request gets an error shaped
// like mysql2's own timeout (503) and the connection's socket is destroyed, so the pool never
// lends it again. better-sqlite3 runs each statement synchronously on the Node thread, where
// nothing can interrupt it: the embedded engine serves small local data sets, and
// deployments that need QUERY_TIMEOUT_MS use MySQL.
import type Database from 'better-sqlite3';
import type { Knex } from 'knex';
import { sqliteReaderOf } from './connect.js';
import { dialectOf } from './dialect.js';
import { cancel, watch, type Deadline } from './statement-deadline.js';

type Row = Record<string, unknown>;

interface TarnPool {
  acquire(): { promise: Promise<unknown> };
  release(conn: unknown): boolean;
}

interface MysqlConnection {
  execute(
    sql: string,
    values: readonly unknown[],
    callback: (err: Error | null, rows?: unknown, fields?: readonly { readonly name: string }[]) => void,
  ): void;
  destroy(): void;
  readonly stream: { destroy(): void };
}

/** Shaped like the error mysql2 raises when a statement outlives its `timeout`. */
function inactivityTimeout(): Error {
  return Object.assign(new Error('Query inactivity timeout'), { code: 'PROTOCOL_SEQUENCE_TIMEOUT' });
}

/** Statements prepared per SQLite connection, by text; bounded, since the texts come from a closed set of shapes. */
const sqliteStatements = new WeakMap<Database.Database, Map<string, Database.Statement>>();
const sqliteStatementCap = 1000;
const timeoutGraceMs = 1000;

function sqliteStatement(conn: Database.Database, sql: string): Database.Statement {
  let cache = sqliteStatements.get(conn);
  if (!cache) sqliteStatements.set(conn, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) {
    if (cache.size >= sqliteStatementCap) cache.clear();
    cache.set(sql, (statement = conn.prepare(sql)));
  }
  return statement;
}

// As knex's better-sqlite3 client binds them: Dates as epoch milliseconds, booleans as 0/1.
const sqliteValue = (v: unknown): unknown => (v instanceof Date ? v.valueOf() : typeof v === 'boolean' ? Number(v) : v);

/** A row as a driver gives it: an array of cells (better-sqlite3's raw mode) or an object keyed by column (mysql2). */
export type Cells = readonly unknown[] | Readonly<Record<string, unknown>>;

/** The cell at `key` (a Table key) of a row. */
export const cellOf = (row: Cells, key: number | string): unknown => (row as Readonly<Record<number | string, unknown>>)[key];

/**
 * A SELECT's answer as the page path reads it: column names once, and where each column's
 * cell sits in a row (`keys`): its index on SQLite, its name on MySQL. Each driver's rows
 * are kept as it built them, so no row is copied into another shape.
 */
export interface Table {
  readonly columns: readonly string[];
  readonly keys: readonly (number | string)[];
  readonly rows: readonly Cells[];
}

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

/** Column names and positions per prepared SQLite statement: better-sqlite3 builds a fresh description on every call. */
const sqliteColumns = new WeakMap<Database.Statement, Pick<Table, 'columns' | 'keys'>>();
function columnsOf(statement: Database.Statement): Pick<Table, 'columns' | 'keys'> {
  let columns = sqliteColumns.get(statement);
  if (columns === undefined) {
    const names = statement.columns().map((c) => c.name);
    sqliteColumns.set(statement, (columns = { columns: names, keys: names.map((_, i) => i) }));
  }
  return columns;
}

/** mysql2's rows as a Table: each row stays the object the driver built, read by column name. */
function tableOf(rows: readonly Cells[], fields: readonly { readonly name: string }[]): Table {
  const columns = fields.map((f) => f.name);
  return { columns, keys: columns, rows };
}

/**
 * The rows of one SELECT as objects keyed by column, run on a connection of `db`'s pool (on
 * a SQLite file, on the read path's own connection, connect.ts). Driver errors reject as the
 * driver raised them.
 */
export function selectRows<R = Row>(db: Knex, sql: string, bindings: readonly unknown[], timeoutMs?: number): Promise<R[]> {
  return select(db, sql, bindings, timeoutMs, false) as Promise<R[]>;
}

/**
 * The same as a Table. On SQLite the rows come as arrays from the driver (better-sqlite3's
 * raw mode) instead of an object with named properties per row: on a page of ten rows that
 * saves about 10 µs of CPU per statement.
 */
export function selectTable(db: Knex, sql: string, bindings: readonly unknown[], timeoutMs?: number): Promise<Table> {
  return select(db, sql, bindings, timeoutMs, true) as Promise<Table>;
}

/** Knex's 'query' event, as its runner raises it, for whoever listens (tests count statements and connections with it). */
function announce(db: Knex, sql: string, bindings: readonly unknown[], conn: unknown): void {
  if (db.listenerCount('query') > 0) {
    (db.client as { emit(event: string, data: unknown): void }).emit('query', { method: 'select', sql, bindings, __knexUid: (conn as { __knexUid?: string } | undefined)?.__knexUid });
  }
}

/**
 * Written with callbacks rather than async/await: the two promises and the awaits of an
 * async version cost more per statement than the rest of this function.
 */
function select(db: Knex, sql: string, bindings: readonly unknown[], timeoutMs: number | undefined, asTable: boolean): Promise<unknown> {
  // Knex's pool itself (tarn), without Knex's async wrapper around it: a promise and a
  // frame fewer per statement. Its errors are tarn's own (driver-errors.ts knows them).
  const pool = (db.client as { pool: TarnPool }).pool;
  if (dialectOf(db) === 'sqlite') {
    const all = (conn: Database.Database): unknown => {
      announce(db, sql, bindings, conn);
      const statement = sqliteStatement(conn, sql).raw(asTable);
      const rows = statement.all(bindings.map(sqliteValue)) as Cells[];
      if (!asTable) return rows;
      const { columns, keys } = columnsOf(statement);
      return { columns, keys, rows };
    };
    const reader = sqliteReaderOf(db);
    if (reader !== undefined) {
      try {
        return Promise.resolve(all(reader));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return pool.acquire().promise.then((conn) => {
      try {
        return all(conn as Database.Database);
      } finally {
        pool.release(conn);
      }
    });
  }
  return pool.acquire().promise.then((conn) => {
    announce(db, sql, bindings, conn);
    return executeOn(conn as MysqlConnection, sql, bindings, timeoutMs, asTable, () => pool.release(conn));
  });
}

/**
 * One statement on a MySQL connection the caller holds. Whichever comes first, the server's
 * answer or the deadline, settles it; `settled` runs then, once, before the promise does.
 */
function executeOn(connection: MysqlConnection, sql: string, bindings: readonly unknown[], timeoutMs: number | undefined, asTable: boolean, settled: () => void): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    let pending = true;
    let deadline: Deadline | undefined;
    const finish = (err: Error | null, rows?: unknown, fields?: readonly { readonly name: string }[]) => {
      if (!pending) return;
      pending = false;
      if (deadline !== undefined) cancel(deadline);
      settled();
      if (err) reject(err);
      else resolve(asTable ? tableOf(rows as readonly Cells[], fields ?? []) : rows);
    };
    // Armed before the call: mysql2 may call back synchronously (a connection in closed
    // state), and a deadline armed after that would outlive the release.
    if (timeoutMs) {
      deadline = watch(timeoutMs + timeoutGraceMs, () => {
        if (!pending) return;
        // mysql2's destroy() only half-closes (end()); a hung server would keep the socket.
        connection.destroy();
        connection.stream.destroy();
        finish(inactivityTimeout());
      });
    }
    try {
      connection.execute(sql, bindings, finish);
    } catch (err) {
      // mysql2 refuses some values before sending anything (undefined, a function).
      finish(err as Error);
    }
  });
}

/** Runs a SELECT of a request's statements (selectTogether). */
export type SelectOn = (sql: string, bindings: readonly unknown[]) => Promise<Table>;

/**
 * The statements `work` asks for, on one connection of `db`'s pool (design.md §8). On MySQL
 * each is sent once the one before it has settled, in the order they were asked, so its
 * deadline runs from when the server gets it; the connection goes back to the pool once
 * `work` has settled and so has every statement it asked for: a statement left waiting
 * behind a failed one never travels with the connection to another request. On SQLite each
 * reads as selectTable does (the read path's own connection, synchronously).
 */
export function selectTogether<T>(db: Knex, timeoutMs: number | undefined, work: (select: SelectOn) => Promise<T>): Promise<T> {
  if (dialectOf(db) === 'sqlite') {
    try {
      return work((sql, bindings) => selectTable(db, sql, bindings, timeoutMs));
    } catch (err) {
      return Promise.reject(err);
    }
  }
  const pool = (db.client as { pool: TarnPool }).pool;
  return pool.acquire().promise.then((conn) => {
    let inFlight = 1; // work itself, until it settles
    const done = () => {
      if (--inFlight === 0) pool.release(conn);
    };
    // The last statement asked, settled or not: the next one waits for it.
    let last: Promise<unknown> = Promise.resolve();
    const selectOn: SelectOn = (sql, bindings) => {
      inFlight++;
      const send = () => {
        announce(db, sql, bindings, conn);
        return executeOn(conn as MysqlConnection, sql, bindings, timeoutMs, true, done);
      };
      const table = last.then(send, send) as Promise<Table>;
      last = table;
      return table;
    };
    let answer: Promise<T>;
    try {
      answer = work(selectOn);
    } catch (err) {
      done();
      throw err;
    }
    return answer.then(
      (value) => {
        done();
        return value;
      },
      (err: unknown) => {
        done();
        throw err;
      },
    );
  });
}
