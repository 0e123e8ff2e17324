// Register (POST and PUT /register, design.md §5): rate limit, validate every rule,
// create the user with DEFAULT_ROLES, and open a session only with autoLogin.
import type { AccountsContext } from '../auth/accounts-context.js';
import { tooManyRequests } from '../auth/auth-errors.js';
import { createUser } from '../auth/create-user.js';
import { rateLimitFields } from '../auth/rate-limit-fields.js';
import { registerInput } from '../auth/register-input.js';
import type { HandlerMap } from '../http/operation.js';

export function registerHandler(ctx: AccountsContext): HandlerMap['Register'] {
  const { config, logger } = ctx.deps;
  return async (req) => {
    const gate = await ctx.registerLimiter.hit(req.clientIp);
    req.announce(rateLimitFields('register', gate));
    if (!gate.allowed) throw tooManyRequests(gate.retryAfterSeconds);
    const input = registerInput(req.dto);
    if (!input.ok) throw input.error;
    const { userName, email, password, firstName, lastName, displayName, meta, autoLogin, referrerUrl } = input.value;

    const created = await createUser(ctx.createUserContext, { userName, email, password, firstName, lastName, displayName, meta }, config.defaultRoles, { autoLogin });
    logger.info({ event: 'user.registered', userId: created.userId, autoLogin }, 'user registered');
    return {
      body: {
        userId: created.userId,
        // An e-mail-only user signs in with the e-mail: there is no user name to return.
        ...(userName !== undefined ? { userName } : {}),
        ...(referrerUrl !== undefined ? { referrerUrl } : {}),
        ...(created.session ?? {}),
      },
    };
  };
}
