// Access control in one place (design.md §3, §4): each operation declares x-public or
// x-roles in the spec; a bearer token is verified before anything else is looked at,
// so a caller without the role learns nothing (403 before 400 or 404).
import { forbidden, unauthorized } from '../auth/auth-errors.js';
import { hasRole } from '../auth/roles.js';
import type { Result } from '../errors/api-error.js';
import type { Access } from './contract.js';
import type { Principal } from '../auth/roles.js';

export interface Authenticator {
  verifyAccessToken(token: string): Result<Principal>;
}

export function authorize(access: Access, authorization: string | undefined, auth: Authenticator): Principal | null {
  if (access.kind === 'public') return null;
  const principal = bearerOf(authorization, auth);
  if (!principal) throw unauthorized('A bearer token is required');
  if (access.roles.length > 0 && !access.roles.some((r) => hasRole(principal, r))) {
    throw forbidden();
  }
  return principal;
}

/** The caller a bearer token names: null without one, 401 for a malformed or invalid one. */
export function bearerOf(authorization: string | undefined, auth: Authenticator): Principal | null {
  if (authorization === undefined) return null;
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(authorization);
  if (!m) throw unauthorized('A bearer token is required');
  const verified = auth.verifyAccessToken(m[1]!);
  if (!verified.ok) throw verified.error;
  return verified.value;
}
