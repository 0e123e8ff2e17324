// A consistent snapshot on MySQL/MariaDB, for an export (design.md §7, Exports): one
// connection of the read pool held until `close`, its transaction REPEATABLE READ and
// begun `WITH CONSISTENT SNAPSHOT, READ ONLY`, so InnoDB fixes its read view at once and
// every page reads that view whatever commits meanwhile. Each page is one statement under
// the session's own limit (QUERY_TIMEOUT_MS, connect.ts) and the client's grace second
// behind it (mysql-reads.ts), as any read; the export as a whole has no time limit.
import type { PoolConnection } from 'mysql2';
import type { MysqlReadPool } from './mysql-read-pool.js';
import type { Snapshot } from './read-executor.js';
import type { Table } from './table.js';

/** One prepared statement on `conn` (mysql-reads.ts, executeOn); `settled` says whether it never answered. */
export type ExecuteOn = (conn: PoolConnection, sql: string, bindings: readonly unknown[], timeoutMs: number | undefined, asTable: boolean, settled: (timedOut: boolean) => void) => Promise<unknown>;

/** A text-protocol statement: transaction control has nothing to prepare. */
function control(conn: PoolConnection, sql: string): Promise<void> {
  return new Promise((resolve, reject) => conn.query(sql, (err) => (err ? reject(err) : resolve())));
}

const acquired = (pool: MysqlReadPool) =>
  new Promise<PoolConnection>((resolve, reject) => pool.acquire((err, conn) => (err ? reject(err) : resolve(conn!))));

export async function openMysqlSnapshot(pool: MysqlReadPool, timeoutMs: number | undefined, executeOn: ExecuteOn): Promise<Snapshot> {
  const conn = await acquired(pool);
  try {
    // For the next transaction only: the pool's sessions keep the server's default.
    await control(conn, 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await control(conn, 'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
  } catch (err) {
    pool.discard(conn);
    throw err;
  }
  /** A statement that never answered takes the connection with it, as in mysql-reads.ts. */
  let lost = false;
  let last: Promise<unknown> = Promise.resolve();
  let closed: Promise<void> | undefined;
  const settle = () => undefined;
  return {
    select(sql, bindings) {
      if (closed !== undefined) return Promise.reject(new Error('The snapshot is closed'));
      const send = () => executeOn(conn, sql, bindings, timeoutMs, true, (timedOut) => void (lost ||= timedOut)) as Promise<Table>;
      const table = last.then(send, send);
      last = table;
      return table;
    },
    close() {
      // The statement in flight settles first, so the connection never travels with it.
      closed ??= last.then(settle, settle).then(async () => {
        if (lost) return pool.discard(conn);
        try {
          await control(conn, 'COMMIT');
          pool.release(conn);
        } catch {
          pool.discard(conn);
        }
      });
      return closed;
    },
  };
}
