// Writes every answer: JSON (nulls omitted), JSONP, CSV, and the ResponseStatus
// envelope for failures (design.md §2, §3). The one place bodies are serialized.
import { STATUS_CODES, type ServerResponse } from 'node:http';
import { translateDbError } from '../db/driver-errors.js';
import { ApiError } from '../errors/api-error.js';
import { toCsv } from './csv.js';
import type { Negotiated } from './negotiate.js';
import type { OperationResponse } from './operation.js';

const dropNulls = (_key: string, value: unknown) => (value === null ? undefined : value);

/** Whether a property somewhere in `value` is null (values with toJSON, such as Dates, are leaves). */
function holdsNull(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => v !== null && typeof v === 'object' && holdsNull(v));
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (v === null || (typeof v === 'object' && holdsNull(v))) return true;
  }
  return false;
}

/**
 * JSON with null properties left out (design.md §1). A replacer function makes
 * JSON.stringify about twice as slow, and most bodies (query results, built without
 * nulls) need none, so it is used only when a null is actually there.
 */
export function toJson(body: unknown, nullFree = false): string {
  if (body === null || body === undefined) return '{}';
  return (!nullFree && holdsNull(body) ? JSON.stringify(body, dropNulls) : JSON.stringify(body)) ?? '{}';
}

function setHeaders(res: ServerResponse, headers: Readonly<Record<string, string>> | undefined): void {
  if (headers) for (const name in headers) res.setHeader(name, headers[name]!);
}

/** Writes a complete text body. Node sends no body for HEAD itself. */
function end(res: ServerResponse, status: number, contentType: string, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, callback: string | undefined, nullFree = false): void {
  const json = toJson(body, nullFree);
  if (callback !== undefined) {
    // The status stays 200 so the browser runs the callback; the body carries responseStatus.
    // The /**/ prefix defuses the Rosetta Flash family of attacks on JSONP endpoints.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    end(res, 200, 'application/javascript; charset=utf-8', `/**/${callback}(${json});`);
    return;
  }
  end(res, status, 'application/json; charset=utf-8', json);
}

/** `dtoName` names the CSV attachment (`SoggettoRecapitoQuery.csv`), whichever route served it. */
export function sendResult(res: ServerResponse, dtoName: string, negotiated: Negotiated, result: OperationResponse): void {
  setHeaders(res, result.headers);
  if (negotiated.format === 'csv') {
    if (!result.csv) throw new Error(`${dtoName} was negotiated as CSV but returned no table`);
    res.setHeader('Content-Disposition', `attachment; filename="${dtoName}.csv"`);
    end(res, result.status ?? 200, 'text/csv; charset=utf-8', toCsv(result.csv));
    return;
  }
  sendJson(res, result.status ?? 200, result.body, negotiated.callback, result.nullFree);
}

export interface ErrorOptions {
  readonly debug: boolean;
  readonly callback: string | undefined;
}

/** The ResponseStatus of an error, as every failure carries it (design.md §3). */
function responseStatusOf(error: ApiError): Record<string, unknown> {
  return { errorCode: error.code, message: error.message, errors: error.errors };
}

/** The JSON body of an error answer, for the paths that cannot go through sendError. */
export function errorJson(error: ApiError): string {
  return JSON.stringify({ responseStatus: responseStatusOf(error) });
}

export function sendError(res: ServerResponse, error: ApiError, options: ErrorOptions, cause?: unknown): void {
  setHeaders(res, error.headers);
  const responseStatus = responseStatusOf(error);
  if (options.debug) {
    const stack = (cause instanceof Error ? cause.stack : undefined) ?? error.stack;
    if (stack) responseStatus['stackTrace'] = stack;
  }
  sendJson(res, error.status, { responseStatus }, options.callback);
}

/**
 * Anything that is not an ApiError is a driver error (the database went away, a query was
 * cancelled: 503 with Retry-After, from whichever handler it escaped), a client error
 * raised by express while serving a file of /docs (http-errors marks those `expose`: a
 * path that is not valid percent-encoding), or a bug: a generic 500, details only in the log.
 */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const http = err as { expose?: unknown; status?: unknown } | null;
  if (http?.expose === true && typeof http.status === 'number' && http.status >= 400 && http.status < 500) {
    return http.status === 404 ? ApiError.of('NotFound', 'No such route or operation') : ApiError.of('SerializationException', 'The request could not be read');
  }
  return translateDbError(err);
}

/**
 * The bytes of an error answer written straight to a socket, for requests Node's parser
 * refused (oversized headers, broken request line) before express ever saw them.
 */
export function rawErrorResponse(error: ApiError): string {
  const body = errorJson(error);
  return [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
