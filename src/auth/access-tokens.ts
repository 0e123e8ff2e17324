// JWT access tokens (design.md §4): HS256 with JWT_SECRET, or RS256/ES256 with key files.
// Keys are built once; verification pins the configured algorithm (so `none` and HS/RS
// confusion are refused), checks iss and aud, and reads time from the injected clock.
import crypto, { type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import jwt from 'jsonwebtoken';
import type { Config } from '../config.js';
import { fail, ok, type Result } from '../errors/api-error.js';
import type { Principal } from './roles.js';
import { unauthorized } from './auth-errors.js';

/** Seconds of clock skew tolerated between nodes (design.md §4). */
export const clockToleranceSeconds = 30;

export interface AccessTokenClaims {
  readonly userId: string;
  readonly sessionId: string;
  readonly userName?: string | undefined;
  readonly roles: readonly string[];
}

export interface AccessTokens {
  issue(claims: AccessTokenClaims): string;
  verify(token: string): Result<Principal>;
}

function keysOf(config: Config): { signing: KeyObject; verifying: KeyObject } {
  const { algorithm, secret, privateKeyFile, publicKeyFile } = config.jwt;
  if (algorithm === 'HS256') {
    if (!secret) throw new Error('JWT_SECRET: is required for HS256');
    // A KeyObject built once: jsonwebtoken would otherwise rebuild one from the string per call.
    const key = crypto.createSecretKey(Buffer.from(secret, 'utf8'));
    return { signing: key, verifying: key };
  }
  if (!privateKeyFile || !publicKeyFile) throw new Error(`JWT_PRIVATE_KEY_FILE and JWT_PUBLIC_KEY_FILE: are required for ${algorithm}`);
  return {
    signing: crypto.createPrivateKey(fs.readFileSync(privateKeyFile)),
    verifying: crypto.createPublicKey(fs.readFileSync(publicKeyFile)),
  };
}

/**
 * Verified tokens remembered, so a client's next request with the same token skips the
 * signature check and claim parsing (about 80 µs with jsonwebtoken, a tenth of a query's
 * whole cost). Only tokens that passed every check get in; a hit
 * still checks expiry on the clock, and nothing else about a verified token can change
 * while it lives (access tokens are not revocable, design.md §4). Bounded: the oldest
 * entry goes first.
 */
const verifiedCacheSize = 10_000;

export function createAccessTokens(config: Config, clock: () => Date): AccessTokens {
  const { algorithm, issuer, audience } = config.jwt;
  const { signing, verifying } = keysOf(config);
  const nowSeconds = () => Math.floor(clock().getTime() / 1000);
  const verified = new Map<string, { readonly principal: Principal; readonly exp: number }>();

  return {
    issue({ userId, sessionId, userName, roles }) {
      const iat = nowSeconds();
      const payload = { sub: userId, sid: sessionId, roles: [...roles], ...(userName ? { name: userName } : {}), iat, exp: iat + config.accessTokenTtl };
      return jwt.sign(payload, signing, { algorithm, issuer, audience });
    },
    verify(token) {
      const known = verified.get(token);
      // jsonwebtoken's own rule: expired once now >= exp + clockTolerance.
      if (known && nowSeconds() < known.exp + clockToleranceSeconds) return ok(known.principal);
      if (known) verified.delete(token);
      let claims: unknown;
      try {
        claims = jwt.verify(token, verifying, {
          algorithms: [algorithm],
          issuer,
          audience,
          clockTolerance: clockToleranceSeconds,
          clockTimestamp: nowSeconds(),
        });
      } catch {
        return fail(unauthorized('Invalid or expired token'));
      }
      const c = claims as Record<string, unknown>;
      const wellFormed =
        typeof c['sub'] === 'string' && typeof c['sid'] === 'string' && typeof c['exp'] === 'number' &&
        Array.isArray(c['roles']) && c['roles'].every((r) => typeof r === 'string') &&
        (c['name'] === undefined || typeof c['name'] === 'string');
      // A token without exp would never expire: refuse it even if correctly signed.
      if (!wellFormed) return fail(unauthorized('Invalid or expired token'));
      const principal: Principal = Object.freeze({
        userId: c['sub'] as string,
        sessionId: c['sid'] as string,
        userName: c['name'] as string | undefined,
        roles: Object.freeze([...(c['roles'] as string[])]),
      });
      if (verified.size >= verifiedCacheSize) verified.delete(verified.keys().next().value!);
      verified.set(token, { principal, exp: c['exp'] as number });
      return ok(principal);
    },
  };
}
