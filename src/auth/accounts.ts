// The accounts module the app wires: the seven account operations, access-token
// verification for the HTTP edge, and the start-up admin bootstrap (design.md §4, §5).
import type { Deps } from '../deps.js';
import type { Result } from '../errors/api-error.js';
import type { OperationHandler } from '../http/operation.js';
import type { Principal } from './roles.js';
import { registerHandler } from '../handlers/account-register.js';
import { rolesHandler } from '../handlers/account-roles.js';
import { accessTokenHandler, logoutHandler } from '../handlers/account-session.js';
import { signInHandler } from '../handlers/account-sign-in.js';
import { createAccessTokens, type AccessTokenClaims } from './access-tokens.js';
import type { AccountsContext } from './accounts-context.js';
import { bootstrapAdmin } from './bootstrap-admin.js';
import { createScryptHasher, dummyHash, limitHasher, type PasswordHasher } from './password-hasher.js';
import { createMemoryRateLimiter, type RateLimiter } from './rate-limiter.js';

export { hasRole } from './roles.js';

export type AccountOperation = 'Register' | 'RegisterPut' | 'Authenticate' | 'GetAccessToken' | 'Logout' | 'AssignRoles' | 'UnAssignRoles';

export interface Accounts {
  readonly handlers: Readonly<Record<AccountOperation, OperationHandler>>;
  /** A 401 ApiError (with WWW-Authenticate: Bearer) on any failure. */
  verifyAccessToken(token: string): Result<Principal>;
  issueAccessToken(claims: AccessTokenClaims): string;
  bootstrapAdmin(): Promise<void>;
  close(): Promise<void>;
}

/** Replaceable parts, for tests and for a shared rate-limit store across nodes. */
export interface AccountsOptions {
  /** The raw hasher; it is wrapped in the HASH_CONCURRENCY / HASH_QUEUE bound. */
  readonly hasher?: PasswordHasher;
  readonly registerLimiter?: RateLimiter;
  readonly loginFailureLimiter?: RateLimiter;
}

export function createAccounts(deps: Deps, options: AccountsOptions = {}): Accounts {
  const { config, clock, db } = deps;
  const tokens = createAccessTokens(config, clock);
  const hasher = limitHasher(options.hasher ?? createScryptHasher(config.scrypt), config.hashConcurrency, config.hashQueue);
  const ctx: AccountsContext = {
    deps,
    hasher,
    tokens,
    dummyHash: dummyHash(config.scrypt),
    registerLimiter: options.registerLimiter ?? createMemoryRateLimiter(config.rateLimitRegisterPerMin, clock),
    loginFailureLimiter: options.loginFailureLimiter ?? createMemoryRateLimiter(config.rateLimitLoginFailuresPerMin, clock),
    createUserContext: { db, hasher, clock, refreshTokenTtl: config.refreshTokenTtl, tokens },
  };
  const register = registerHandler(ctx);

  return {
    handlers: {
      Register: register,
      RegisterPut: register,
      Authenticate: signInHandler(ctx),
      GetAccessToken: accessTokenHandler(ctx),
      Logout: logoutHandler(ctx),
      AssignRoles: rolesHandler(ctx, 'assign'),
      UnAssignRoles: rolesHandler(ctx, 'unassign'),
    },
    verifyAccessToken: (token) => tokens.verify(token),
    issueAccessToken: (claims) => tokens.issue(claims),
    async bootstrapAdmin() {
      const result = await bootstrapAdmin(ctx.createUserContext, config);
      if (result !== 'skipped') deps.logger.info({ event: 'auth.bootstrap-admin', result }, `admin user ${result}`);
    },
    // Nothing runs in the background: the limiters sweep on use, hashing is per request.
    close: async () => {},
  };
}
