// Writes every answer: JSON (nulls omitted), JSONP, CSV, and the ResponseStatus
// envelope for failures (design.md §2, §3). The one place bodies are serialized.
import { STATUS_CODES, type ServerResponse } from 'node:http';
import { translateDbError } from '../db/driver-errors.js';
import { ApiError } from '../errors/api-error.js';
import { toCsv } from './csv.js';
import type { Negotiated } from './negotiate.js';
import type { NotModified, OperationResponse } from './operation.js';

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

const none: readonly string[] = [];

/** The entries of `headers` as writeHead takes them: names and values in one list. */
function listOf(headers: Readonly<Record<string, string>> | undefined): readonly string[] {
  if (headers === undefined) return none;
  const list: string[] = [];
  for (const name in headers) list.push(name, headers[name]!);
  return list;
}

/**
 * Writes a complete text body, every header in one writeHead: Node then validates and
 * serializes them in one pass, where setHeader per header also keeps them in a map first
 * (5-6 µs of CPU a request under load, profiled). `headers`: names and values in one list;
 * Node adds those set before (the request id, middleware's) and sends no body for HEAD itself.
 */
function end(res: ServerResponse, status: number, contentType: string, text: string, headers: readonly string[]): void {
  res.writeHead(status, [...headers, 'Content-Type', contentType, 'Content-Length', String(Buffer.byteLength(text))]);
  res.end(text);
}

function sendJson(res: ServerResponse, status: number, body: unknown, callback: string | undefined, nullFree: boolean | undefined, headers: readonly string[]): void {
  const json = toJson(body, nullFree);
  if (callback !== undefined) {
    // The status stays 200 so the browser runs the callback; the body carries responseStatus.
    // The /**/ prefix defuses the Rosetta Flash family of attacks on JSONP endpoints, with the
    // X-Content-Type-Options: nosniff that every answer carries.
    end(res, 200, 'application/javascript; charset=utf-8', `/**/${callback}(${json});`, headers);
    return;
  }
  end(res, status, 'application/json; charset=utf-8', json, headers);
}

/** `dtoName` names the CSV attachment (`SoggettoRecapitoQuery.csv`), whichever route served it. */
export function sendResult(res: ServerResponse, dtoName: string, negotiated: Negotiated, result: OperationResponse | NotModified): void {
  const headers = listOf(result.headers);
  if ('notModified' in result) {
    // RFC 9110 §15.4.5: the tag and caching fields the 200 would carry, and no content.
    res.writeHead(304, headers as string[]);
    res.end();
    return;
  }
  if (negotiated.format === 'csv') {
    if (!result.csv) throw new Error(`${dtoName} was negotiated as CSV but returned no table`);
    const csvHeaders = [...headers, 'Content-Disposition', `attachment; filename="${dtoName}.csv"`];
    end(res, result.status ?? 200, 'text/csv; charset=utf-8', toCsv(result.csv), csvHeaders);
    return;
  }
  sendJson(res, result.status ?? 200, result.body, negotiated.callback, result.nullFree, headers);
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

// What any unexpected error becomes, written by hand when answering the error failed.
const lastResort = errorJson(asApiError(new Error('unanswerable')));

export function sendError(res: ServerResponse, error: ApiError, options: ErrorOptions, cause?: unknown): void {
  const responseStatus = responseStatusOf(error);
  if (options.debug) {
    const stack = (cause instanceof Error ? cause.stack : undefined) ?? error.stack;
    if (stack) responseStatus['stackTrace'] = stack;
  }
  sendJson(res, error.status, { responseStatus }, options.callback, false, listOf(error.headers));
}

/** The last-resort answer of a request whose error could not be answered otherwise: a bare 500 envelope. */
export function sendLastResort(res: ServerResponse): void {
  end(res, 500, 'application/json; charset=utf-8', lastResort, none);
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
