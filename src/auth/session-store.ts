// Sessions and their opaque refresh tokens (design.md §4). A refresh token is 256 random
// bits, stored only as its SHA-256, and spent on use: each refresh returns a new one.
// Presenting a spent token means it leaked (or a client raced itself), so the whole
// session is revoked (OAuth 2.0 Security BCP, RFC 9700 §4.14.2).
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Database } from '../db/database.js';
import { writeTransaction } from '../db/write-transaction.js';
import { invalidRefreshToken } from './auth-errors.js';
import { idOf, millisOf } from './db-values.js';

export interface IssuedSession {
  readonly sessionId: string;
  readonly refreshToken: string;
}

export interface Rotation extends IssuedSession {
  readonly userId: string;
}

const tokenShape = /^[A-Za-z0-9_-]{43}$/;

export const hashToken = (token: string): string => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

async function storeToken(db: Knex, sessionId: string, now: Date, ttlSeconds: number): Promise<string> {
  const token = crypto.randomBytes(32).toString('base64url');
  await db('refresh_token').insert({ token_hash: hashToken(token), session_id: sessionId, expires_at: new Date(now.getTime() + ttlSeconds * 1000), spent_at: null });
  return token;
}

export async function createSession(db: Knex, userId: string, now: Date, ttlSeconds: number): Promise<IssuedSession> {
  const sessionId = crypto.randomUUID();
  await db('auth_session').insert({ id: sessionId, user_id: userId, created_at: now, revoked_at: null });
  return { sessionId, refreshToken: await storeToken(db, sessionId, now, ttlSeconds) };
}

export async function revokeSession(db: Knex, sessionId: string, now: Date): Promise<void> {
  await db('auth_session').where({ id: sessionId }).whereNull('revoked_at').update({ revoked_at: now });
}

type Outcome = { kind: 'rotated'; rotation: Rotation } | { kind: 'invalid' } | { kind: 'reused'; sessionId: string; userId: string };

/**
 * A refresh in either mode of REFRESH_TOKEN_ROTATION (design.md §11). `rotate` spends the
 * token and issues its successor; `reuse` keeps the session's one token, as ServiceStack
 * clients expect (they present the first token they were given at every refresh), and
 * answers that same token while it is valid. In both modes a spent token revokes the
 * session (`onReuse` hears about it), and an unknown, malformed, expired or revoked one is 401.
 */
export async function refreshSession(
  database: Database, token: string, now: Date, ttlSeconds: number, onReuse: (sessionId: string, userId: string) => void, mode: 'rotate' | 'reuse',
): Promise<Rotation> {
  if (!tokenShape.test(token)) throw invalidRefreshToken();
  const hash = hashToken(token);
  // The revocation must commit, so the transaction returns an outcome instead of throwing.
  const outcome = await writeTransaction(database, async (trx): Promise<Outcome> => {
    // The inner join with app_user refuses the sessions of a deleted user even where no
    // ON DELETE CASCADE removed them (rows loaded by hand, foreign keys switched off).
    const row = await trx('refresh_token as t')
      .join('auth_session as s', 's.id', 't.session_id')
      .join('app_user as u', 'u.id', 's.user_id')
      .where('t.token_hash', hash)
      .first('t.session_id', 't.expires_at', 't.spent_at', 's.user_id', 's.revoked_at');
    if (!row || row.revoked_at != null) return { kind: 'invalid' };
    const sessionId = String(row.session_id);
    const userId = idOf(row.user_id);
    if (row.spent_at != null) {
      await revokeSession(trx, sessionId, now);
      return { kind: 'reused', sessionId, userId };
    }
    if (millisOf(row.expires_at) <= now.getTime()) return { kind: 'invalid' };
    if (mode === 'reuse') return { kind: 'rotated', rotation: { userId, sessionId, refreshToken: token } };
    // Conditional on spent_at IS NULL: of two concurrent uses exactly one spends the token.
    const spent = await trx('refresh_token').where({ token_hash: hash }).whereNull('spent_at').update({ spent_at: now });
    if (spent !== 1) {
      await revokeSession(trx, sessionId, now);
      return { kind: 'reused', sessionId, userId };
    }
    return { kind: 'rotated', rotation: { userId, sessionId, refreshToken: await storeToken(trx, sessionId, now, ttlSeconds) } };
  });
  if (outcome.kind === 'rotated') return outcome.rotation;
  if (outcome.kind === 'reused') onReuse(outcome.sessionId, outcome.userId);
  throw invalidRefreshToken();
}
