// The one way a failed request is answered: the ResponseStatus envelope (respond.ts), in
// JSONP when the request asked for a valid callback, with one log line for a 503 or a 500.
import type { Request, Response } from 'express';
import { validateCallback } from './negotiate.js';
import { asApiError, sendError, sendLastResort } from './respond.js';
import { localsOf } from './request-locals.js';
import { queryValue } from './servicestack-leniency.js';

export type AnswerError = (req: Request, res: Response, err: unknown) => void;

export function errorAnswerer(debug: boolean): AnswerError {
  const answer: AnswerError = (req, res, err) => {
    const error = asApiError(err);
    // A 503 is an expected operational state (the database is down or slow): one short
    // warning per request. A 500 is a bug and gets the cause, without the SQL text, whose
    // bound values may be personal data.
    if (error.status === 503) req.log.warn({ errorCode: error.code, driverCode: driverCode(error.cause ?? err) }, 'request failed');
    else if (error.status >= 500) req.log.error({ err: withoutSql(error.cause ?? err) }, 'request failed');
    if (res.headersSent) return void res.end();
    sendError(res, error, { debug, callback: localsOf(res).negotiated?.callback ?? callbackOf(res) }, err);
  };
  return (req, res, err) => {
    try {
      answer(req, res, err);
    } catch {
      // Answering itself failed (its logger threw): still answer with the envelope.
      if (res.headersSent) return void res.destroy();
      sendLastResort(res);
    }
  };
}

/** The request's JSONP callback when negotiation never ran (the error came first), if valid. */
function callbackOf(res: Response): string | undefined {
  try {
    return validateCallback(queryValue(localsOf(res).queryPairs, 'callback'));
  } catch {
    return undefined;
  }
}

function driverCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return code === undefined ? undefined : String(code);
}

function withoutSql(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const { name, message, stack } = err;
  const { code, errno } = err as Error & { code?: unknown; errno?: unknown };
  return { type: name, message, stack, code, errno };
}
