// CORS per design.md §9: only the origins in CORS_ORIGINS (`*` for any) get CORS headers;
// a preflight is answered 204 with the methods the path really allows. With the list
// empty nothing here runs, so same-origin clients see no CORS headers at all.
import type { Exchange } from './exchange.js';

// If-None-Match: a script's conditional GET (design.md §7) is not a CORS-safelisted request.
const allowHeaders = 'Authorization, Content-Type, X-Request-Id, If-None-Match';
// Headers a script may read from a cross-origin answer beyond the CORS-safelisted ones.
const exposeHeaders = 'X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate, Allow, Content-Disposition, ETag';
const preflightMaxAgeSeconds = '600';

/** Adds `field` to the Vary header unless it is already listed there (or Vary is `*`). */
function vary(ex: Exchange, field: string): void {
  const current = ex.res.getHeader('Vary');
  const listed = current === undefined ? [] : String(current).split(',').map((s) => s.trim().toLowerCase());
  if (listed.includes('*') || listed.includes(field.toLowerCase())) return;
  ex.res.setHeader('Vary', current === undefined ? field : `${String(current)}, ${field}`);
}

export interface Cors {
  /** Sets the CORS headers of an allowed origin, on every answer. */
  headers(ex: Exchange): void;
  /** Answers a preflight from an allowed origin with the path's `methods`; false when the request is none. */
  preflight(ex: Exchange, methods: readonly string[]): boolean;
}

export function cors(origins: readonly string[]): Cors {
  const anyOrigin = origins.includes('*');
  const allowed = new Set(origins);
  const allowedOrigin = (ex: Exchange): string | undefined => {
    if (origins.length === 0) return undefined;
    const origin = ex.header('origin');
    return origin !== undefined && (anyOrigin || allowed.has(origin)) ? origin : undefined;
  };
  const isPreflight = (ex: Exchange): boolean => ex.req.method === 'OPTIONS' && ex.header('access-control-request-method') !== undefined;
  return {
    headers(ex) {
      const origin = allowedOrigin(ex);
      if (origin === undefined) return;
      vary(ex, 'Origin');
      ex.res.setHeader('Access-Control-Allow-Origin', anyOrigin ? '*' : origin);
      if (!isPreflight(ex)) ex.res.setHeader('Access-Control-Expose-Headers', exposeHeaders);
    },
    preflight(ex, methods) {
      if (allowedOrigin(ex) === undefined || !isPreflight(ex) || methods.length === 0) return false;
      ex.res.setHeader('Access-Control-Allow-Methods', methods.join(', '));
      ex.res.setHeader('Access-Control-Allow-Headers', allowHeaders);
      ex.res.setHeader('Access-Control-Max-Age', preflightMaxAgeSeconds);
      ex.res.statusCode = 204;
      ex.res.end();
      return true;
    },
  };
}
