// What the account handlers share: built once by createAccounts, injectable in tests
// (a counting hasher, a fake limiter).
import type { Deps } from '../deps.js';
import type { AccessTokens } from './access-tokens.js';
import type { CreateUserContext } from './create-user.js';
import type { PasswordHasher } from './password-hasher.js';
import type { RateLimiter } from './rate-limiter.js';

export interface AccountsContext {
  readonly deps: Deps;
  /** Already bounded by HASH_CONCURRENCY / HASH_QUEUE. */
  readonly hasher: PasswordHasher;
  readonly tokens: AccessTokens;
  /** Verified against when the user is unknown, so both failures cost one scrypt run. */
  readonly dummyHash: string;
  readonly registerLimiter: RateLimiter;
  readonly loginFailureLimiter: RateLimiter;
  readonly createUserContext: CreateUserContext;
}
