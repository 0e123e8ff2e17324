// What the edge learns about a request on its way through the middleware, kept where
// express keeps per-request state, res.locals, and read through one typed view. Everything
// else about the request is express's own: req.path, req.ip and req.protocol/req.host
// (under app.set('trust proxy')), req.params, req.log (pino-http).
import type { Response } from 'express';
import type { Principal } from '../auth/roles.js';
import type { Negotiated } from './negotiate.js';
import type { Body } from './request-dto.js';

/** The query string's pairs, in order, decoded, names as sent. */
export type QueryPairs = ReadonlyArray<readonly [string, string]>;

export interface EdgeLocals {
  /** Set by the first middleware (servicestack-leniency.ts, queryPairs). */
  queryPairs: QueryPairs;
  /** The canonical operation id, once routed to an operation: metrics and the request log read it. */
  operationId?: string;
  /** The format and JSONP callback (serve-operation.ts, after the negotiation step). */
  negotiated?: Negotiated;
  /** Whether the answer is the live event stream of a tagged GET (design.md §7). */
  live?: boolean;
  /** The caller, once the access step has passed (null: a public operation). */
  principal?: Principal | null;
  /** The parsed body, once read. */
  body?: Body;
  /** The request DTO, once built. */
  dto?: Readonly<Record<string, unknown>>;
}

/** The edge's state of the request `res` answers. */
export function localsOf(res: Response): EdgeLocals {
  return res.locals as EdgeLocals;
}
