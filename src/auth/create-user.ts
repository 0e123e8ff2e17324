// Creating a user, shared by Register, the admin bootstrap and the CLI. The password is
// hashed first (outside any transaction: scrypt takes ~100 ms and must not hold a
// connection), then the user, its roles and any session are written in one transaction,
// so a failure part-way leaves no half-made account behind.
import type { AccessTokens } from './access-tokens.js';
import type { PasswordHasher } from './password-hasher.js';
import { createSession } from './session-store.js';
import type { Database } from '../db/database.js';
import { writeTransaction } from '../db/write-transaction.js';
import { insertUser, refuseTaken, type NewUser } from './user-store.js';

export interface CreateUserContext {
  readonly db: Database;
  readonly hasher: PasswordHasher;
  readonly clock: () => Date;
  readonly refreshTokenTtl: number;
  /** Needed only when a session is opened. */
  readonly tokens?: AccessTokens;
}

export interface CreatedUser {
  readonly userId: string;
  readonly session?: { readonly sessionId: string; readonly refreshToken: string; readonly bearerToken: string };
}

export async function createUser(
  ctx: CreateUserContext,
  user: NewUser & { readonly password: string },
  roles: readonly string[],
  options: { readonly autoLogin?: boolean } = {},
): Promise<CreatedUser> {
  // A taken name, or a database that is down, is known before scrypt's ~100 ms: both answer
  // at once, and nobody can make the service hash for a name that cannot be registered.
  await refuseTaken(ctx.db.knex, user);
  const passwordHash = await ctx.hasher.hash(user.password);
  const now = ctx.clock();
  return writeTransaction(ctx.db, async (trx): Promise<CreatedUser> => {
    const userId = await insertUser(trx, user, passwordHash, roles, now);
    if (!options.autoLogin) return { userId };
    if (!ctx.tokens) throw new Error('createUser: autoLogin needs the access-token service');
    const { sessionId, refreshToken } = await createSession(trx, userId, now, ctx.refreshTokenTtl);
    // Signed inside the transaction: if signing failed, the user would not exist either.
    const bearerToken = ctx.tokens.issue({ userId, sessionId, userName: user.userName, roles });
    return { userId, session: { sessionId, refreshToken, bearerToken } };
  });
}
