// GetAccessToken (POST /access-token) and Logout (POST /auth/logout), design.md §4.
// A refresh reads the user's current roles, so role changes reach the next token.
import type { AccountsContext } from '../auth/accounts-context.js';
import { unauthorized } from '../auth/auth-errors.js';
import { refreshSession, revokeSession } from '../auth/session-store.js';
import { rolesOf } from '../auth/user-store.js';
import { writeTransaction } from '../db/write-transaction.js';
import { ApiError } from '../errors/api-error.js';
import type { Principal } from '../auth/roles.js';
import type { HandlerMap, Response } from '../http/operation.js';

export function accessTokenHandler(ctx: AccountsContext): HandlerMap['GetAccessToken'] {
  const { db, config, clock, logger } = ctx.deps;
  return async (req): Promise<Response<'GetAccessToken'>> => {
    const token = req.dto.refreshToken;
    if (token === undefined || token === '') throw ApiError.field('NotEmpty', 'RefreshToken', "'RefreshToken' must not be empty.");
    const onReuse = (sessionId: string, userId: string) =>
      logger.warn({ event: 'auth.refresh-reuse', sessionId, userId, clientIp: req.clientIp }, 'spent refresh token presented: session revoked');
    const rotation = await refreshSession(db, token, clock(), config.refreshTokenTtl, onReuse, config.refreshTokenRotation);
    const [roles, user] = await Promise.all([
      rolesOf(db.knex, rotation.userId),
      db.knex('app_user').where({ id: rotation.userId }).first('user_name') as Promise<{ user_name: string | null } | undefined>,
    ]);
    const accessToken = ctx.tokens.issue({ userId: rotation.userId, sessionId: rotation.sessionId, userName: user?.user_name ?? undefined, roles });
    return { body: { accessToken, refreshToken: rotation.refreshToken } };
  };
}

export function logoutHandler(ctx: AccountsContext): HandlerMap['Logout'] {
  return async (req): Promise<Response<'Logout'>> => signOut(ctx, req.principal);
}

/** Logout, and Authenticate with `provider: "logout"` (design.md §11): one way to sign out. */
export async function signOut(ctx: AccountsContext, principal: Principal | null): Promise<Response<'Logout'>> {
  const { db, clock, logger } = ctx.deps;
  if (!principal) throw unauthorized();
  // Idempotent: revoking a revoked session changes nothing and still answers {}.
  await writeTransaction(db, (trx) => revokeSession(trx, principal.sessionId, clock()));
  logger.info({ event: 'auth.logout', userId: principal.userId, sessionId: principal.sessionId }, 'signed out');
  return { body: {} };
}
