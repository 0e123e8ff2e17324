// The first middleware of every request: its Exchange (request id, path and query, logger),
// and, once the answer is sent or the client has gone, its metrics sample and log line.
import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { TrustProxy } from '../config.js';
import { Exchange } from './exchange.js';
import { logAnswered, requestIdOf } from './request-log.js';

export type Finished = (ex: Exchange, seconds: number) => void;

export function exchanges(logger: Logger, trust: TrustProxy, finished: Finished): RequestHandler {
  return (req, res, next) => {
    const supplied = req.headers['x-request-id'];
    const ex = new Exchange(req, res, requestIdOf(typeof supplied === 'string' ? supplied : undefined), logger, trust);
    res.locals['exchange'] = ex;
    // 'close' follows every answer, sent whole or cut short by the client (a live answer's
    // usual end, an export cut short), so one listener logs and counts each.
    res.on('close', () => {
      const seconds = (performance.now() - ex.started) / 1000;
      finished(ex, seconds);
      logAnswered(logger, ex, seconds);
    });
    next();
  };
}

/** The Exchange the first middleware made for this answer. */
export function exchangeOf(res: Response): Exchange {
  return res.locals['exchange'] as Exchange;
}
