// Register (POST and PUT /register, design.md §5): rate limit, then every broken rule at
// once (the contract's and its own), create the user with DEFAULT_ROLES, and open a session
// only with autoLogin.
import type { AccountsContext } from '../auth/accounts-context.js';
import { tooManyRequests } from '../auth/auth-errors.js';
import { createUser } from '../auth/create-user.js';
import { rateLimitFields } from '../auth/rate-limit-fields.js';
import { registerInput } from '../auth/register-input.js';
import { reportingFieldErrors, type HandlerMap, type Request, type Response } from '../http/operation.js';

export function registerHandler(ctx: AccountsContext): HandlerMap['Register'] {
  const { config, logger } = ctx.deps;
  // The declared return type checks the answer as a literal, so a property the contract
  // renames or drops fails tsc here. The rate limit counts every request, invalid ones too,
  // so it comes before the rules.
  return reportingFieldErrors(async (req: Request<'Register'>): Promise<Response<'Register'>> => {
    const gate = await ctx.registerLimiter.hit(req.clientIp);
    req.announce(rateLimitFields('register', gate));
    if (!gate.allowed) throw tooManyRequests(gate.retryAfterSeconds);
    const input = registerInput(req.dto, req.fieldErrors);
    if (!input.ok) throw input.error;
    const { userName, email, password, firstName, lastName, displayName, meta, autoLogin, referrerUrl } = input.value;

    const created = await createUser(ctx.createUserContext, { userName, email, password, firstName, lastName, displayName, meta }, config.defaultRoles, { autoLogin });
    logger.info({ event: 'user.registered', userId: created.userId, autoLogin }, 'user registered');
    const session = created.session;
    // Properties left undefined are not written: an e-mail-only user has no user name to
    // return, and only autoLogin opens a session.
    return {
      body: {
        userId: created.userId,
        userName,
        referrerUrl,
        sessionId: session?.sessionId,
        bearerToken: session?.bearerToken,
        refreshToken: session?.refreshToken,
      },
    };
  });
}
