// One JSON log line per request (pino), tagged with a request id that the client may
// supply in X-Request-Id and always gets back. Only the path is logged: query strings
// and headers can carry credentials.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Exchange } from './exchange.js';

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

/** The line for a finished request: at info, or at error for a 5xx (which production's warn level keeps). */
export function logAnswered(logger: Logger, ex: Exchange, seconds: number): void {
  const status = ex.res.statusCode;
  if (status < 500 && !logger.isLevelEnabled('info')) return;
  const line = { method: ex.req.method, path: ex.path, operation: ex.operationId, status, ms: Math.round(seconds * 10_000) / 10 };
  if (status >= 500) ex.log.error(line, 'request');
  else ex.log.info(line, 'request');
}
