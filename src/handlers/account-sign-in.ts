// Authenticate (POST /auth/credentials, design.md §4). An unknown user and a wrong
// password give the same 401 after the same work: the unknown user is verified against
// a dummy hash. Failures count against the client's IP; past the limit, 429.
import type { AccountsContext } from '../auth/accounts-context.js';
import { invalidCredentials, tooManyRequests } from '../auth/auth-errors.js';
import { rateLimitFields } from '../auth/rate-limit-fields.js';
import { createSession } from '../auth/session-store.js';
import { writeTransaction } from '../db/write-transaction.js';
import { signOut } from './account-session.js';
import { findUser, rolesOf } from '../auth/user-store.js';
import { ApiError, type FieldError } from '../errors/api-error.js';
import { everyPropertyRead, type HandlerMap, type Response } from '../http/operation.js';

export function signInHandler(ctx: AccountsContext): HandlerMap['Authenticate'] {
  const { db, config, clock, logger } = ctx.deps;
  // The declared return type checks the answer as a literal, so a property the contract
  // renames or drops fails tsc here.
  return async (req): Promise<Response<'Authenticate'>> => {
    // ServiceStack's Authenticate DTO also signs out (design.md §11); the schema allows
    // only `credentials` or `logout` as a provider.
    // rememberMe, useTokenCookie (false, by its schema) and meta change nothing here.
    const { provider, userName, password, rememberMe, useTokenCookie, meta, ...rest } = req.dto;
    everyPropertyRead(rest);
    void [rememberMe, useTokenCookie, meta];
    if (provider === 'logout') return signOut(ctx, req.bearer());
    // Checked before any verification: a blocked client learns nothing about the password.
    const gate = await ctx.loginFailureLimiter.check(req.clientIp);
    req.announce(rateLimitFields('sign-in-failures', gate));
    if (!gate.allowed) throw tooManyRequests(gate.retryAfterSeconds);
    const errors: FieldError[] = [];
    for (const [value, fieldName] of [[userName, 'UserName'], [password, 'Password']] as const) {
      if (typeof value !== 'string' || value === '') errors.push({ errorCode: 'NotEmpty', fieldName, message: `'${fieldName}' must not be empty.` });
    }
    if (errors.length > 0 || userName === undefined || password === undefined) throw ApiError.validation(errors);

    const user = await findUser(db.knex, userName);
    const matches = await ctx.hasher.verify(user?.passwordHash ?? ctx.dummyHash, password);
    if (!user || !matches) {
      req.announce(rateLimitFields('sign-in-failures', await ctx.loginFailureLimiter.hit(req.clientIp)));
      logger.info({ event: 'auth.failed', clientIp: req.clientIp }, 'sign-in failed');
      throw invalidCredentials();
    }

    const roles = await rolesOf(db.knex, user.id);
    const { sessionId, refreshToken } = await writeTransaction(db, (trx) => createSession(trx, user.id, clock(), config.refreshTokenTtl));
    const bearerToken = ctx.tokens.issue({ userId: user.id, sessionId, userName: user.userName, roles });
    logger.info({ event: 'auth.signed-in', userId: user.id, sessionId }, 'signed in');
    return {
      body: { userId: user.id, sessionId, userName: user.userName ?? user.email, displayName: user.displayName, bearerToken, refreshToken, roles },
    };
  };
}
