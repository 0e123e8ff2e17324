// The read path on a SQLite file (design.md §8): read-only better-sqlite3 connections the
// service opens itself, beside the pool's one connection, which stays the writers'. In WAL
// mode a reader never waits for the writer and sees what was committed when its statement
// started, so a query can neither see a write transaction half-done nor wait behind one.
//
// A request of several statements reads them all in one read transaction on a second
// read-only connection, so every statement of it sees the same committed state, whatever
// commits between them. Such requests take that connection in turn: each statement runs
// synchronously, so a request holds it only for its own CPU time. better-sqlite3 runs each statement synchronously on the Node thread, where
// nothing can interrupt it: QUERY_TIMEOUT_MS applies on MySQL only (design.md §8).
import Database from 'better-sqlite3';
import { attempt, type ReadExecutor, type SelectOn, type Snapshot } from './read-executor.js';
import type { Cells, Table } from './table.js';

/** Statements prepared per connection, by text; bounded, since the texts come from a closed set of shapes. */
const statementCap = 1000;

// As Knex's better-sqlite3 client binds them: Dates as epoch milliseconds, booleans as 0/1.
const sqliteValue = (v: unknown): unknown => (v instanceof Date ? v.valueOf() : typeof v === 'boolean' ? Number(v) : v);

interface Reader {
  readonly conn: Database.Database;
  readonly statements: Map<string, Database.Statement>;
}

function statementOf(reader: Reader, sql: string): Database.Statement {
  let statement = reader.statements.get(sql);
  if (statement === undefined) {
    if (reader.statements.size >= statementCap) reader.statements.clear();
    reader.statements.set(sql, (statement = reader.conn.prepare(sql)));
  }
  return statement;
}

/** Column names and positions per prepared statement: better-sqlite3 builds a fresh description on every call. */
const columnsOfStatement = new WeakMap<Database.Statement, Pick<Table, 'columns' | 'keys'>>();
function columnsOf(statement: Database.Statement): Pick<Table, 'columns' | 'keys'> {
  let columns = columnsOfStatement.get(statement);
  if (columns === undefined) {
    const names = statement.columns().map((c) => c.name);
    columnsOfStatement.set(statement, (columns = { columns: names, keys: names.map((_, i) => i) }));
  }
  return columns;
}

/**
 * The rows of one SELECT. As a Table they come as arrays (better-sqlite3's raw mode)
 * instead of an object with named properties per row: on a page of ten rows that saves
 * about 10 µs of CPU per statement.
 */
function run(reader: Reader, sql: string, bindings: readonly unknown[], asTable: boolean): unknown {
  const statement = statementOf(reader, sql).raw(asTable);
  const rows = statement.all(bindings.map(sqliteValue)) as Cells[];
  if (!asTable) return rows;
  const { columns, keys } = columnsOf(statement);
  return { columns, keys, rows };
}

export interface SqliteReads extends ReadExecutor {
  /** The read-only connection single statements read on. */
  readonly connection: () => Database.Database;
}

/** Reads of the SQLite `file`; `prepare` gives each connection what the service's SQL needs (the fold function). */
function openReader(file: string, prepare: (conn: Database.Database) => void): Reader {
  const conn = new Database(file, { readonly: true, fileMustExist: true });
  // A reader waits only while another connection recovers the WAL index after a crash.
  conn.pragma('busy_timeout = 5000');
  prepare(conn);
  return { conn, statements: new Map() };
}

/**
 * A read transaction on a connection of its own, for an export (design.md §7, Exports):
 * its snapshot is fixed at its first SELECT and held until `close`, so every page reads
 * the same committed state; meanwhile the WAL cannot be checkpointed past it. Closing
 * commits and closes the connection, so nothing of it outlives the export.
 */
function openSnapshot(reader: Reader): Snapshot {
  statementOf(reader, 'BEGIN').run();
  let open = true;
  return {
    select(sql, bindings) {
      if (!open) return Promise.reject(new Error('The snapshot is closed'));
      try {
        return Promise.resolve(run(reader, sql, bindings, true) as Table);
      } catch (err) {
        return Promise.reject(err);
      }
    },
    close() {
      if (!open) return Promise.resolve();
      open = false;
      try {
        if (reader.conn.inTransaction) statementOf(reader, 'COMMIT').run();
      } finally {
        reader.conn.close();
      }
      return Promise.resolve();
    },
  };
}

export function sqliteReads(file: string, prepare: (conn: Database.Database) => void): SqliteReads {
  const open = () => openReader(file, prepare);
  let main: Reader | undefined;
  let grouped: Reader | undefined;
  /** The request of several statements now reading, or the last one. */
  let turn: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  let reading = false;
  const mainReader = () => (main ??= open());
  const inTransaction = <T>(work: (select: SelectOn) => Promise<T>): Promise<T> => {
    const reader = (grouped ??= open());
    const selectOn: SelectOn = (sql, bindings) => {
      try {
        if (!reader.conn.inTransaction) statementOf(reader, 'BEGIN').run();
        return Promise.resolve(run(reader, sql, bindings, true) as Table);
      } catch (err) {
        return Promise.reject(err);
      }
    };
    return attempt(work, selectOn).finally(() => {
      if (reader.conn.inTransaction) statementOf(reader, 'COMMIT').run();
    });
  };
  return {
    connection: () => mainReader().conn,
    select(sql, bindings, _timeoutMs, asTable) {
      try {
        return Promise.resolve(run(mainReader(), sql, bindings, asTable));
      } catch (err) {
        return Promise.reject(err);
      }
    },
    together(_timeoutMs, work) {
      waiting++;
      const answer = turn.then(() => {
        waiting--;
        reading = true;
        return inTransaction(work).finally(() => (reading = false));
      });
      turn = answer.catch(() => undefined);
      return answer;
    },
    snapshot() {
      try {
        return Promise.resolve(openSnapshot(open()));
      } catch (err) {
        return Promise.reject(err);
      }
    },
    // The transaction connection is the one lent, in turn; the single-statement one is never held.
    figures: () => {
      const open = Number(main !== undefined) + Number(grouped !== undefined);
      return { used: Number(reading), free: open - Number(reading), max: 2, waiting };
    },
    async close() {
      await turn;
      main?.conn.close();
      grouped?.conn.close();
      main = grouped = undefined;
    },
  };
}
