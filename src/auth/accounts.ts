// The accounts module the app wires: what the seven account operations share (their
// context; the handlers themselves live in handlers/), access-token verification for the
// HTTP edge, and the start-up admin bootstrap (design.md §4, §5).
import type { Deps } from '../deps.js';
import type { Result } from '../errors/api-error.js';
import type { Principal } from './roles.js';
import { createAccessTokens, type AccessTokenClaims } from './access-tokens.js';
import type { AccountsContext } from './accounts-context.js';
import { bootstrapAdmin } from './bootstrap-admin.js';
import { dummyHash, limitHasher, type PasswordHasher } from './password-hasher.js';
import { createProcessHasher } from './process-hasher.js';
import { createMemoryRateLimiter, type RateLimiter } from './rate-limiter.js';
import { createSharedRateLimiter } from './shared-rate-limiter.js';

export { hasRole } from './roles.js';

export interface Accounts {
  /** What the account handlers (handlers/account-*.ts) work with. */
  readonly context: AccountsContext;
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
  // MySQL deployments may run several nodes, and several workers may share one machine: their
  // limits are counted in the database. One process alone on the embedded SQLite file counts
  // in memory (design.md §10, §12).
  const shared = db.dialect === 'mysql' || config.workers > 1;
  const limiter = (bucket: string, limit: number) =>
    shared ? createSharedRateLimiter(db, bucket, limit, clock) : createMemoryRateLimiter(limit, clock);
  // scrypt runs in a child process at the lowest CPU priority, so that hashing yields the
  // CPU to queries (design.md §5).
  const lost = (reason: string) => deps.logger.error({ event: 'auth.hasher-lost' }, reason);
  const hasher = limitHasher(options.hasher ?? createProcessHasher(config.scrypt, config.hashConcurrency, lost), config.hashConcurrency, config.hashQueue);
  const ctx: AccountsContext = {
    deps,
    hasher,
    tokens,
    dummyHash: dummyHash(config.scrypt),
    registerLimiter: options.registerLimiter ?? limiter('register', config.rateLimitRegisterPerMin),
    loginFailureLimiter: options.loginFailureLimiter ?? limiter('login-failure', config.rateLimitLoginFailuresPerMin),
    createUserContext: { db, hasher, clock, refreshTokenTtl: config.refreshTokenTtl, tokens },
  };

  return {
    context: ctx,
    verifyAccessToken: (token) => tokens.verify(token),
    issueAccessToken: (claims) => tokens.issue(claims),
    async bootstrapAdmin() {
      const result = await bootstrapAdmin(ctx.createUserContext, config);
      if (result !== 'skipped') deps.logger.info({ event: 'auth.bootstrap-admin', result }, `admin user ${result}`);
    },
    // The limiters sweep on use; the one thing to stop is the hashing process.
    close: async () => hasher.close?.(),
  };
}
