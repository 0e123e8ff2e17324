// Driver failures -> the service's errors. Driver and SQL text never reach a client
// (DECISIONS §3): only the code and a fixed message do.
import { ApiError } from '../errors/api-error.js';

// ER_STATEMENT_TIMEOUT (MariaDB max_statement_time) and ER_QUERY_TIMEOUT (MySQL
// max_execution_time): https://mariadb.com/kb/en/mariadb-error-codes/
const timeoutErrnos = new Set([1969, 3024]);
// The server went away or cannot be reached: worth a retry, unlike a bug.
const unavailableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'PROTOCOL_CONNECTION_LOST']);

/** The original error stays on `cause`, for the log only. */
export function translateDbError(err: unknown): ApiError {
  const error = classify(err);
  error.cause = err;
  return error;
}

function classify(err: unknown): ApiError {
  const e = (err ?? {}) as { name?: string; timeout?: unknown; errno?: unknown; code?: unknown };
  // knex sets `timeout` on the error of a query cancelled by .timeout(); a pool acquire
  // timeout is also a KnexTimeoutError but has no such property.
  if (typeof e.timeout === 'number' || timeoutErrnos.has(Number(e.errno))) {
    return ApiError.of('QueryTimeout', 'The query took too long and was cancelled', { 'Retry-After': '1' });
  }
  if (e.name === 'KnexTimeoutError' || unavailableCodes.has(String(e.code))) {
    return ApiError.of('ServiceUnavailable', 'The database is unavailable', { 'Retry-After': '1' });
  }
  return ApiError.of('InternalServerError', 'An internal error occurred');
}
