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
    // 'finish' when the answer was sent whole; 'close' alone when the client left first (a
    // live answer's usual end, an export cut short), which is logged and counted too.
    let answered = false;
    const done = () => {
      if (answered) return;
      answered = true;
      const seconds = (performance.now() - ex.started) / 1000;
      finished(ex, seconds);
      logAnswered(logger, ex, seconds);
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}

/** The Exchange the first middleware made for this answer. */
export function exchangeOf(res: Response): Exchange {
  return res.locals['exchange'] as Exchange;
}
