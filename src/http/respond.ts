// Writes every answer: JSON (nulls omitted), JSONP, CSV, and the ResponseStatus
// envelope for failures (DECISIONS §2, §3). The one place bodies are serialized.
import type { Response } from 'express';
import { ApiError } from '../errors/api-error.js';
import { toCsv } from './csv.js';
import type { Negotiated } from './negotiate.js';
import type { OperationResponse } from './operation.js';

const dropNulls = (_key: string, value: unknown) => (value === null ? undefined : value);

export function sendJson(res: Response, status: number, body: unknown, callback: string | undefined): void {
  const json = JSON.stringify(body, dropNulls) ?? '{}';
  if (callback !== undefined) {
    // The status stays 200 so the browser runs the callback; the body carries responseStatus.
    res.status(200).set({ 'Content-Type': 'application/javascript; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    // The /**/ prefix defuses the Rosetta Flash family of attacks on JSONP endpoints.
    res.send(`/**/${callback}(${json});`);
    return;
  }
  res.status(status).set('Content-Type', 'application/json; charset=utf-8').send(json);
}

export function sendResult(res: Response, operationId: string, negotiated: Negotiated, result: OperationResponse): void {
  if (result.headers) res.set(result.headers);
  if (negotiated.format === 'csv') {
    if (!result.csv) throw new Error(`${operationId} was negotiated as CSV but returned no table`);
    res.status(result.status ?? 200).set({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${operationId.replace(/Get$/, '')}.csv"`,
    });
    res.send(toCsv(result.csv));
    return;
  }
  sendJson(res, result.status ?? 200, result.body, negotiated.callback);
}

export interface ErrorOptions {
  readonly debug: boolean;
  readonly callback: string | undefined;
}

export function sendError(res: Response, error: ApiError, options: ErrorOptions, cause?: unknown): void {
  res.set(error.headers);
  const responseStatus: Record<string, unknown> = { errorCode: error.code, message: error.message, errors: error.errors };
  if (options.debug) {
    const stack = (cause instanceof Error ? cause.stack : undefined) ?? error.stack;
    if (stack) responseStatus['stackTrace'] = stack;
  }
  sendJson(res, error.status, { responseStatus }, options.callback);
}

/** Anything that is not an ApiError is a bug: a generic 500, the details only in the log. */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return ApiError.of('InternalServerError', 'An unexpected error occurred');
}
