// CORS per DECISIONS §9: only the origins in CORS_ORIGINS (`*` for any) get CORS headers;
// a preflight is answered 204 with the methods the path really allows. With the list
// empty nothing here runs, so same-origin clients see no CORS headers at all.
import type { NextFunction, Request, Response } from 'express';

const allowHeaders = 'Authorization, Content-Type, X-Request-Id';
// Headers a script may read from a cross-origin answer beyond the CORS-safelisted ones.
const exposeHeaders = 'X-Request-Id, Retry-After, WWW-Authenticate, Allow, Content-Disposition';
const preflightMaxAgeSeconds = '600';

export function cors(origins: readonly string[], allowedMethods: (path: string) => string[]) {
  const anyOrigin = origins.includes('*');
  const allowed = new Set(origins);
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.get('origin');
    if (origins.length === 0 || origin === undefined || !(anyOrigin || allowed.has(origin))) return next();
    res.vary('Origin');
    res.set('Access-Control-Allow-Origin', anyOrigin ? '*' : origin);
    const requestedMethod = req.get('access-control-request-method');
    if (req.method !== 'OPTIONS' || requestedMethod === undefined) {
      res.set('Access-Control-Expose-Headers', exposeHeaders);
      return next();
    }
    const methods = allowedMethods(req.path);
    if (methods.length === 0) return next();
    res.set({
      'Access-Control-Allow-Methods': methods.join(', '),
      'Access-Control-Allow-Headers': allowHeaders,
      'Access-Control-Max-Age': preflightMaxAgeSeconds,
    });
    res.status(204).end();
  };
}
