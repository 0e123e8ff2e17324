// CORS per design.md §9, by the `cors` package: only the origins in CORS_ORIGINS (`*` for
// any) get CORS headers; a preflight is answered 204 with the methods the path really
// allows, which the operation router knows (app.ts). With the list empty nothing here
// runs, so same-origin clients see no CORS headers at all.
import type { Request, RequestHandler } from 'express';
import cors, { type CorsOptions } from 'cors';

// If-None-Match: a script's conditional GET (design.md §7) is not a CORS-safelisted request.
const allowedHeaders = 'Authorization, Content-Type, X-Request-Id, If-None-Match';
// Headers a script may read from a cross-origin answer beyond the CORS-safelisted ones.
const exposedHeaders = 'X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate, Allow, Content-Disposition, ETag';
const preflightMaxAgeSeconds = 600;

export interface CorsPolicy {
  /** Sets the CORS headers of an allowed origin on every answer but to OPTIONS; undefined when no origin is allowed. */
  readonly answers: RequestHandler | undefined;
  /** Answers a preflight from an allowed origin with `methods`; calls next for any other request. */
  preflight(methods: readonly string[]): RequestHandler;
}

/** A preflight: OPTIONS asking about another method (Fetch standard, CORS-preflight request). */
export const isPreflight = (req: Request): boolean => req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;

export function corsPolicy(origins: readonly string[]): CorsPolicy {
  if (origins.length === 0) return { answers: undefined, preflight: () => (_req, _res, next) => next() };
  const anyOrigin = origins.includes('*');
  const listed = new Set(origins);
  // `*` answers `*`; a listed origin is echoed (with Vary: Origin); any other origin, or none, gets no CORS header.
  const origin: CorsOptions['origin'] = (sent, decide) => decide(null, sent !== undefined && (anyOrigin || listed.has(sent)) ? (anyOrigin ? '*' : sent) : false);
  const actual = cors({ origin, exposedHeaders });
  return {
    // The cors package takes every OPTIONS for a preflight, and a preflight is answered by
    // the route that knows its methods: OPTIONS is left to it (a plain OPTIONS is a 405).
    answers: (req, res, next) => (req.method === 'OPTIONS' ? next() : actual(req, res, next)),
    preflight(methods) {
      const answer = cors({ origin, methods: methods.join(', '), allowedHeaders, maxAge: preflightMaxAgeSeconds, optionsSuccessStatus: 204 });
      return (req, res, next) => (isPreflight(req) ? answer(req, res, next) : next());
    },
  };
}
