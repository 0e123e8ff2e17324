// One JSON log line per request (pino), tagged with a request id that the client may
// supply in X-Request-Id and always gets back. Only the path is logged: query strings
// and headers can carry credentials.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';

const acceptableId = /^[\w.:-]{1,128}$/;

export function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    const supplied = req.get('x-request-id');
    const id = supplied !== undefined && acceptableId.test(supplied) ? supplied : randomUUID();
    res.setHeader('X-Request-Id', id);
    // The child logger is made on first use: pino serializes its bindings when it is
    // made, and at LOG_LEVEL warn (production) most requests never log a line.
    let child: Logger | undefined;
    const log = (): Logger => (child ??= logger.child({ reqId: id }));
    Object.defineProperty(req, 'log', { get: log, enumerable: false, configurable: true });
    res.on('finish', () => {
      if (res.statusCode < 500 && !logger.isLevelEnabled('info')) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const line = { method: req.method, path: req.path, operation: res.locals['operationId'], status: res.statusCode, ms: Math.round(ms * 10) / 10 };
      if (res.statusCode >= 500) log().error(line, 'request');
      else log().info(line, 'request');
    });
    next();
  };
}
