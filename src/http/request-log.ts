// One JSON log line per request, by pino-http: tagged with a request id that the client
// may supply in X-Request-Id and always gets back, written when the answer is sent or the
// client has gone (a live answer's usual end, an export cut short). Only the path is
// logged: query strings and headers can carry credentials. req.log is the request's
// logger, with its id, for whatever else the edge logs about it.
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { localsOf } from './request-locals.js';
import { splitTarget } from './request-target.js';

const acceptableId = /^[\w.:-]{1,128}$/;

// A made-up id is a random UUID's first 80 bits (74 of them random), drawn once per
// process, followed by a 48-bit count of the ids it has made: unique across nodes and
// restarts, in a UUID's shape, without the 20-piece string randomUUID builds per call.
const idPrefix = randomUUID().slice(0, 24);
let madeIds = 0;

/** The client's X-Request-Id when it is a sane token, else a fresh id shaped like a UUID. */
export function requestIdOf(supplied: string | undefined): string {
  if (supplied !== undefined && acceptableId.test(supplied)) return supplied;
  madeIds = (madeIds + 1) % 2 ** 48;
  return idPrefix + madeIds.toString(16).padStart(12, '0');
}

export function requestLog(logger: Logger): RequestHandler {
  const line = (req: Request, res: Response, ms: number) => ({
    method: req.method,
    path: splitTarget(req.originalUrl).path,
    operation: localsOf(res).operationId,
    status: res.statusCode,
    ms,
  });
  return pinoHttp<Request, Response>({
    logger,
    genReqId(req, res) {
      const supplied = req.headers['x-request-id'];
      const id = requestIdOf(typeof supplied === 'string' ? supplied : undefined);
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // req.log carries the request id only; the request itself is never serialized (no
    // headers, no query string), not even into the bindings of a logger nobody uses.
    quietReqLogger: true,
    quietResLogger: true,
    wrapSerializers: false,
    serializers: { req: () => undefined },
    // At info, or at error for a 5xx (which production's warn level keeps); nothing is
    // built for a line the level would drop.
    customLogLevel: (_req, res) => (res.statusCode >= 500 ? 'error' : logger.isLevelEnabled('info') ? 'info' : 'silent'),
    customSuccessObject: (req, res, { responseTime }: { responseTime: number }) => line(req, res, responseTime),
    customErrorObject: (req, res, _err, { responseTime }: { responseTime: number }) => line(req, res, responseTime),
    customSuccessMessage: () => 'request',
    customErrorMessage: () => 'request',
  });
}
