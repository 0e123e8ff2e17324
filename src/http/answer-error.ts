// The one way a failed request is answered: the ResponseStatus envelope (respond.ts), in
// JSONP when the request asked for a valid callback, with one log line for a 503 or a 500.
import { validateCallback } from './negotiate.js';
import { asApiError, sendError, sendLastResort } from './respond.js';
import type { Exchange } from './exchange.js';

export type AnswerError = (ex: Exchange, err: unknown) => void;

export function errorAnswerer(debug: boolean): AnswerError {
  const answer: AnswerError = (ex, err) => {
    const error = asApiError(err);
    // A 503 is an expected operational state (the database is down or slow): one short
    // warning per request. A 500 is a bug and gets the cause, without the SQL text, whose
    // bound values may be personal data.
    if (error.status === 503) ex.log.warn({ errorCode: error.code, driverCode: driverCode(error.cause ?? err) }, 'request failed');
    else if (error.status >= 500) ex.log.error({ err: withoutSql(error.cause ?? err) }, 'request failed');
    if (ex.res.headersSent) return void ex.res.end();
    sendError(ex.res, error, { debug, callback: ex.callback ?? callbackOf(ex) }, err);
  };
  return (ex, err) => {
    try {
      answer(ex, err);
    } catch {
      // Answering itself failed (its logger threw): still answer with the envelope.
      if (ex.res.headersSent) return void ex.res.destroy();
      sendLastResort(ex.res);
    }
  };
}

/** The request's JSONP callback when negotiation never ran (the error came first), if valid. */
function callbackOf(ex: Exchange): string | undefined {
  try {
    return validateCallback(ex.queryValue('callback'));
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
