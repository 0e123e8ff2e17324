// Everything the service knows about driver errors, for both dialects, in one place.
// Driver and SQL text never reach a client (design.md §3): callers get a classification
// (a unique violation, a lost lock race) or an ApiError with a fixed message, and the
// original error stays on `cause` for the log.
import { ApiError } from '../errors/api-error.js';

interface DriverError {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly errno?: unknown;
  readonly sqlMessage?: unknown;
  readonly message?: unknown;
  readonly timeout?: unknown;
  readonly fatal?: unknown;
}

const asDriverError = (err: unknown): DriverError => (typeof err === 'object' && err !== null ? (err as DriverError) : {});

// ---- unique violations -------------------------------------------------------------
// MySQL/MariaDB: ER_DUP_ENTRY (errno 1062), "Duplicate entry 'x' for key 'ux_name'"
// (MySQL 8 writes 'table.ux_name'). SQLite: SQLITE_CONSTRAINT_UNIQUE or _PRIMARYKEY,
// "UNIQUE constraint failed: table.column".

export interface UniqueViolation {
  /** The index name (MySQL) or the `table.column` list (SQLite) the driver reported. */
  readonly target: string;
}

export function uniqueViolation(err: unknown): UniqueViolation | undefined {
  const e = asDriverError(err);
  const message = String(e.sqlMessage ?? e.message ?? '');
  if (e.code === 'ER_DUP_ENTRY' || e.errno === 1062) {
    return { target: /for key '([^']+)'/.exec(message)?.[1] ?? '' };
  }
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return { target: /constraint failed: (.+)$/m.exec(message)?.[1]?.trim() ?? '' };
  }
  return undefined;
}

/** True when the violation concerns `column` (or the index named after it). */
export const violates = (v: UniqueViolation, column: string): boolean =>
  v.target.split(/[\s,.]+/).some((part) => part === column || part.endsWith(`_${column}`));

// ---- writes that may run again ---------------------------------------------------
// A write transaction runs again (db/write-transaction.ts) only when nothing of it can have
// been applied (design.md §12, "A Galera cluster"):
// - the database refused it whole, at any statement or at COMMIT: a deadlock victim or
//   Galera's certification conflict (both ER_LOCK_DEADLOCK 1213), a lock wait given up
//   (ER_LOCK_WAIT_TIMEOUT 1205), a commit the node could not replicate, having lost the
//   cluster's primary component (ER_ERROR_DURING_COMMIT 1180), SQLite's SQLITE_BUSY;
// - or it failed before its COMMIT was sent: the connection was lost, the server was
//   shutting down (ER_SERVER_SHUTDOWN 1053, ER_CONNECTION_KILLED 1927), or a Galera node
//   outside the cluster's primary component refused the statement (ER_UNKNOWN_COM_ERROR
//   1047, "WSREP has not yet prepared node"). An uncommitted transaction dies with its
//   connection, and a Galera node replicates a transaction only at its commit.
// A connection lost after COMMIT was sent leaves the outcome unknown: that error is
// answered, never retried, so no write is applied twice.

const refusedWhole = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'ER_ERROR_DURING_COMMIT', 'SQLITE_BUSY']);
const refusedWholeErrnos = new Set([1213, 1205, 1180]);
const lostBeforeCommit = new Set(['PROTOCOL_CONNECTION_LOST', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ER_SERVER_SHUTDOWN', 'ER_CONNECTION_KILLED', 'ER_UNKNOWN_COM_ERROR']);
const lostBeforeCommitErrnos = new Set([1047, 1053, 1927, 2013, 2006]);

export function mayRunAgain(err: unknown, commitSent: boolean): boolean {
  const e = asDriverError(err);
  if (refusedWhole.has(String(e.code)) || refusedWholeErrnos.has(Number(e.errno))) return true;
  return !commitSent && lostNode(err);
}

/** The driver's error, also behind the ApiError that translateDbError made of it. */
const driverErrorOf = (err: unknown): DriverError => asDriverError(err instanceof ApiError ? err.cause : err);

/** No pooled connection came in time: Knex's KnexTimeoutError, the read pool's POOL_ACQUIRE_TIMEOUT. */
export function noConnectionInTime(err: unknown): boolean {
  const e = driverErrorOf(err);
  return e.code === 'POOL_ACQUIRE_TIMEOUT' || (e.name === 'KnexTimeoutError' && typeof e.timeout !== 'number');
}

/** The connection, or the node behind it, was lost or refused the statement: another node may answer. */
export function lostNode(err: unknown): boolean {
  const e = driverErrorOf(err);
  return lostBeforeCommit.has(String(e.code)) || lostBeforeCommitErrnos.has(Number(e.errno)) || e.fatal === true || e.code === 'ECONNREFUSED';
}

// ---- everything else -> the service's errors ---------------------------------------

// ER_STATEMENT_TIMEOUT (MariaDB max_statement_time) and ER_QUERY_TIMEOUT (MySQL
// max_execution_time): https://mariadb.com/kb/en/mariadb-error-codes/. ER_LOCK_WAIT_TIMEOUT
// (1205) is a lock wait cut by lock_wait_timeout / innodb_lock_wait_timeout, which the
// serving pool sets (src/db/connect.ts); it reaches here once a write's attempts are spent.
const timeoutErrnos = new Set([1969, 3024, 1205]);
// The server went away, cannot be reached or is out of a shared resource (connections, or
// prepared statements, which all its clients share: db/reads/mysql-reads.ts), or no pooled
// connection came in time: worth a retry, unlike a bug.
const unavailableCodes = new Set([
  'POOL_ACQUIRE_TIMEOUT', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN', 'ER_MAX_PREPARED_STMT_COUNT_REACHED',
  // A Galera node outside the primary component ("WSREP has not yet prepared node"), or a
  // certification conflict a write met on every attempt.
  'ER_UNKNOWN_COM_ERROR', 'ER_CONNECTION_KILLED', 'ER_LOCK_DEADLOCK', 'ER_ERROR_DURING_COMMIT',
  'SQLITE_BUSY', 'SQLITE_IOERR', 'SQLITE_FULL',
]);

/** The original error stays on `cause`, for the log only. */
export function translateDbError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const error = classify(asDriverError(err));
  error.cause = err;
  return error;
}

function classify(e: DriverError): ApiError {
  // knex sets `timeout` on the error of a query cancelled by .timeout(); a pool acquire
  // timeout is also a KnexTimeoutError but has no such property.
  if (typeof e.timeout === 'number' || timeoutErrnos.has(Number(e.errno))) {
    return ApiError.of('QueryTimeout', 'The query took too long and was cancelled', { 'Retry-After': '1' });
  }
  // mysql2 marks `fatal` every error that cost it the connection, including the code-less
  // "Can't add new command when connection is in closed state" that a ROLLBACK gets on a
  // connection the server dropped mid-transaction.
  // No connection in time: KnexTimeoutError through Knex, POOL_ACQUIRE_TIMEOUT from the
  // read pool (mysql-read-pool.ts).
  if (e.name === 'KnexTimeoutError' || unavailableCodes.has(String(e.code)) || e.fatal === true) {
    return ApiError.of('ServiceUnavailable', 'The database is unavailable', { 'Retry-After': '1' });
  }
  return ApiError.of('InternalServerError', 'An internal error occurred');
}

// ---- rows a bulk load writes -------------------------------------------------------
// Why the database refused a row of `npm run load`, in words that carry no data. MySQL:
// ER_DUP_ENTRY 1062, ER_NO_REFERENCED_ROW_2 1452, ER_RECORD_FILE_FULL 1114 (InnoDB cannot
// grow a tablespace), ER_DISK_FULL 1021, errno 28 (ENOSPC) inside ER_ERROR_ON_WRITE 3 and
// friends, ER_DATA_TOO_LONG 1406. SQLite: SQLITE_CONSTRAINT_* and SQLITE_FULL.

export type RowRefusal = 'duplicate' | 'foreign-key' | 'disk-full' | 'too-long' | 'other';

export function rowRefusal(err: unknown): RowRefusal {
  const e = asDriverError(err);
  const message = String(e.sqlMessage ?? e.message ?? '');
  if (uniqueViolation(err)) return 'duplicate';
  if (e.errno === 1452 || e.errno === 1216 || e.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return 'foreign-key';
  if (e.errno === 1114 || e.errno === 1021 || e.code === 'SQLITE_FULL' || e.code === 'ENOSPC' || /errno: 28\b|No space left/i.test(message)) return 'disk-full';
  if (e.errno === 1406) return 'too-long';
  return 'other';
}
