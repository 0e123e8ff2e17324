// When a bearer token the edge has already verified expires (design.md §7, "Live answers":
// a stream ends then). Read with jsonwebtoken's decode, which checks nothing: only a token
// `authorize` accepted reaches it.
import jwt from 'jsonwebtoken';

/** The `exp` of `Bearer <token>` in milliseconds since the epoch; undefined without one. */
export function bearerExpiresAt(authorization: string | undefined): number | undefined {
  if (authorization === undefined || !/^bearer /i.test(authorization)) return undefined;
  const claims = jwt.decode(authorization.slice(7).trim(), { json: true });
  return typeof claims?.exp === 'number' ? claims.exp * 1000 : undefined;
}
