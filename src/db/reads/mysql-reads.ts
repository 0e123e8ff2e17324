// The read path on MySQL (design.md §8): SELECTs whose text Knex built, run as prepared
// statements (mysql2's `execute`; each text prepared once per connection and kept in the
// driver's bounded cache, connect.ts) on the read pool of mysql-read-pool.ts. The server
// parses a text once instead of on every request: MariaDB spends 15-25 µs less CPU per
// statement than on client-side formatting, for the same CPU in Node.
//
// Time limit: the pool's sessions carry QUERY_TIMEOUT_MS as the server's own statement
// limit (connect.ts), so the server ends a statement that runs too long and the driver's
// error answers 503 QueryTimeout. A grace second later the client gives up on the statement
// itself, in case the server never answers at all (statement-deadline.ts): the request gets
// an error shaped like mysql2's own timeout (503) and the connection is destroyed, so the
// pool never lends it again.
import type { ExecuteValues, FieldPacket, PoolConnection } from 'mysql2';
import type { MysqlReadPool } from './mysql-read-pool.js';
import { openMysqlSnapshot } from './mysql-snapshot.js';
import { attempt, type ReadExecutor, type SelectOn } from './read-executor.js';
import { cancel, watch, type Deadline } from './statement-deadline.js';
import { tableOfNamed, type Cells, type Table } from './table.js';

const timeoutGraceMs = 1000;

/** Shaped like the error mysql2 raises when a statement outlives its `timeout`. */
function inactivityTimeout(): Error {
  return Object.assign(new Error('Query inactivity timeout'), { code: 'PROTOCOL_SEQUENCE_TIMEOUT' });
}

/** How a statement's connection goes back once the statement has settled: `timedOut` when it never answered. */
type Settled = (timedOut: boolean) => void;

/**
 * One statement on a connection the caller holds. Whichever comes first, the server's
 * answer or the deadline, settles it; `settled` runs then, once, before the promise does.
 */
function executeOn(conn: PoolConnection, sql: string, bindings: readonly unknown[], timeoutMs: number | undefined, asTable: boolean, settled: Settled): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    let pending = true;
    let deadline: Deadline | undefined;
    const finish = (err: Error | null, rows?: unknown, fields?: readonly FieldPacket[], timedOut = false) => {
      if (!pending) return;
      pending = false;
      if (deadline !== undefined) cancel(deadline);
      settled(timedOut);
      if (err) reject(err);
      else resolve(asTable ? tableOfNamed(rows as readonly Cells[], (fields ?? []).map((f) => f.name)) : rows);
    };
    // Armed before the call: mysql2 may call back synchronously (a connection in closed
    // state), and a deadline armed after that would outlive the release.
    if (timeoutMs) deadline = watch(timeoutMs + timeoutGraceMs, () => finish(inactivityTimeout(), undefined, undefined, true));
    try {
      conn.execute(sql, bindings as ExecuteValues[], (err, rows, fields) => finish(err, rows, fields));
    } catch (err) {
      // mysql2 refuses some values before sending anything (undefined, a function).
      finish(err as Error);
    }
  });
}

export function mysqlReads(pool: MysqlReadPool): ReadExecutor {
  const giveBack = (conn: PoolConnection, timedOut: boolean) => (timedOut ? pool.discard(conn) : pool.release(conn));
  const acquired = () => new Promise<PoolConnection>((resolve, reject) => pool.acquire((err, conn) => (err ? reject(err) : resolve(conn!))));
  return {
    select: (sql, bindings, timeoutMs, asTable) =>
      acquired().then((conn) => executeOn(conn, sql, bindings, timeoutMs, asTable, (timedOut) => giveBack(conn, timedOut))),
    together: (timeoutMs, work) => acquired().then((conn) => together(conn, timeoutMs, work, (timedOut) => giveBack(conn, timedOut))),
    snapshot: (timeoutMs) => openMysqlSnapshot(pool, timeoutMs, executeOn),
    figures: pool.figures,
    close: pool.close,
  };
}

/**
 * The statements `work` asks for, on `conn`. Each is sent once the one before it has
 * settled, in the order they were asked, so its deadline runs from when the server gets it;
 * the connection goes back once `work` has settled and so has every statement it asked
 * for: a statement left waiting behind a failed one never travels with the connection to
 * another request. A statement that timed out takes the connection with it.
 */
function together<T>(conn: PoolConnection, timeoutMs: number | undefined, work: (select: SelectOn) => Promise<T>, giveBack: Settled): Promise<T> {
  let inFlight = 1; // work itself, until it settles
  let timedOut = false;
  const done: Settled = (late) => {
    timedOut ||= late;
    if (--inFlight === 0) giveBack(timedOut);
  };
  // The last statement asked, settled or not: the next one waits for it.
  let last: Promise<unknown> = Promise.resolve();
  const selectOn: SelectOn = (sql, bindings) => {
    inFlight++;
    const send = () => (timedOut ? Promise.reject(inactivityTimeout()).finally(() => done(false)) : executeOn(conn, sql, bindings, timeoutMs, true, done));
    const table = last.then(send, send) as Promise<Table>;
    last = table;
    return table;
  };
  return attempt(work, selectOn).then(
    (value) => {
      done(false);
      return value;
    },
    (err: unknown) => {
      done(false);
      throw err;
    },
  );
}
