// The read path through Knex's own query API: for a database the service opened no read
// connection of its own for (an in-memory SQLite database, which a second connection could
// not see). Knex lends a connection of its pool per statement, and one transaction holds
// the statements of one request together.
import type { Knex } from 'knex';
import type { Dialect } from '../dialect.js';
import { attempt, type ReadExecutor, type SelectOn } from './read-executor.js';
import { tableOfNamed, type Cells, type Table } from './table.js';

const timeoutGraceMs = 1000;

/** Knex's answer to a raw SELECT as rows: mysql2 answers [rows, fields], better-sqlite3 the rows. */
function rowsOf(dialect: Dialect, answer: unknown): { rows: Cells[]; columns: readonly string[] } {
  if (dialect === 'mysql') {
    const [rows, fields] = answer as [Cells[], readonly { name: string }[]];
    return { rows, columns: fields.map((f) => f.name) };
  }
  const rows = answer as Record<string, unknown>[];
  return { rows, columns: rows.length > 0 ? Object.keys(rows[0]!) : [] };
}

function selectThrough(db: Knex, dialect: Dialect, sql: string, bindings: readonly unknown[], timeoutMs: number | undefined, asTable: boolean): Promise<unknown> {
  const query = db.raw(sql, bindings as Knex.RawBinding[]);
  return (timeoutMs ? query.timeout(timeoutMs + timeoutGraceMs) : query).then((answer: unknown) => {
    const { rows, columns } = rowsOf(dialect, answer);
    return asTable ? tableOfNamed(rows, columns) : rows;
  });
}

export function knexReads(db: Knex, dialect: Dialect): ReadExecutor {
  return {
    select: (sql, bindings, timeoutMs, asTable) => selectThrough(db, dialect, sql, bindings, timeoutMs, asTable),
    together: (timeoutMs, work) =>
      db.transaction((trx) => {
        const selectOn: SelectOn = (sql, bindings) => selectThrough(trx, dialect, sql, bindings, timeoutMs, true) as Promise<Table>;
        return attempt(work, selectOn);
      }),
    // One Knex transaction, its connection held until close (an in-memory database has one).
    snapshot: async (timeoutMs) => {
      const trx = await db.transaction();
      return {
        select: (sql, bindings) => selectThrough(trx, dialect, sql, bindings, timeoutMs, true) as Promise<Table>,
        close: async () => {
          if (!trx.isCompleted()) await trx.commit();
        },
      };
    },
    figures: () => undefined,
    close: async () => {},
  };
}
