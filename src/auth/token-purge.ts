// Housekeeping of the session tables (design.md §12): refresh tokens and sessions that can
// never be used again are deleted in small batches, so the tables stay the size of the
// live sessions. Nothing still valid is touched: a token is purged once expired, or spent
// for longer than the reuse window; a session once it has no token left and is revoked or
// past its first minute.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { withNamedLock } from '../db/named-lock.js';

export interface Purged {
  readonly tokens: number;
  readonly sessions: number;
}

/**
 * How long a spent refresh token is kept. Presenting a spent token revokes its session
 * (session-store.ts): a thief and the rightful client both hold it, and whichever comes
 * second gives the theft away. Clients refresh every ACCESS_TOKEN_TTL, so a day keeps the
 * evidence for dozens of refreshes; after it, a replay is still refused, only no longer
 * traced.
 */
export const reuseWindowMs = 24 * 3600 * 1000;
/** Rows per statement: short statements keep locks brief on a busy primary. */
export const purgeBatch = 500;
/** A session younger than this may still be getting its first token. */
const sessionGraceMs = 60 * 1000;
const lockName = 'impianti_api_purge';

/** Deletes, batch by batch, the rows `select` keys until none is left. */
async function inBatches(db: Knex, table: string, key: string, select: (q: Knex.QueryBuilder) => Knex.QueryBuilder): Promise<number> {
  let total = 0;
  for (;;) {
    const keys = (await select(db(table)).select(key).limit(purgeBatch)).map((r: Record<string, unknown>) => r[key]);
    if (keys.length === 0) return total;
    // The condition is asked again with the keys: a row is deleted only if it still meets it.
    total += await select(db(table)).whereIn(key, keys as string[]).delete();
    if (keys.length < purgeBatch) return total;
  }
}

/** One purge on this node's clock. */
export async function purgeOnce(db: Knex, now: Date): Promise<Purged> {
  const t = now.getTime();
  const tokens = await inBatches(db, 'refresh_token', 'token_hash', (q) =>
    q.where((w) => w
      .where('expires_at', '<=', now)
      .orWhere('spent_at', '<=', new Date(t - reuseWindowMs))
      .orWhereIn('session_id', (s) => s.from('auth_session').select('id').whereNotNull('revoked_at'))));
  // Only sessions without a token: a revoked one's tokens go through the statement above and
  // are counted there, never by the foreign key's cascade; one written meanwhile waits a turn.
  const sessions = await inBatches(db, 'auth_session', 'id', (q) =>
    q.whereNotExists((e) => e.from('refresh_token').select('token_hash').whereRaw('refresh_token.session_id = auth_session.id'))
      .where((w) => w.whereNotNull('revoked_at').orWhere('created_at', '<=', new Date(t - sessionGraceMs))));
  return { tokens, sessions };
}

/**
 * One purge for the whole deployment: on MySQL the node that takes the lease (db/named-lock.ts) does it
 * and the others skip their turn (undefined); SQLite has one node.
 */
export async function purgeTurn(database: Database, now: Date): Promise<Purged | undefined> {
  if (database.dialect !== 'mysql') return purgeOnce(database.knex, now);
  const turn = await withNamedLock(database, lockName, 0, () => purgeOnce(database.knex, now));
  return turn.held ? turn.value : undefined;
}

export interface PurgeSchedule {
  /** Rows purged by this node since it started. */
  purged(): Purged;
  stop(): Promise<void>;
}

/**
 * PURGE_INTERVAL_S apart (0: never), each turn logged with its counts; a failed turn waits for
 * the next. `afterPurge` follows each turn that deleted rows (the database's maintenance).
 */
export function schedulePurge(deps: { db: Database; clock: () => Date; logger: Logger; intervalS: number; afterPurge?: () => Promise<void> }): PurgeSchedule {
  let total = { tokens: 0, sessions: 0 };
  let running: Promise<void> | undefined;
  const turn = async () => {
    try {
      const purged = await purgeTurn(deps.db, deps.clock());
      if (!purged) return deps.logger.debug('purge skipped: another node holds the turn');
      total = { tokens: total.tokens + purged.tokens, sessions: total.sessions + purged.sessions };
      deps.logger.info({ purgedTokens: purged.tokens, purgedSessions: purged.sessions }, 'purged refresh tokens and sessions');
      if (purged.tokens + purged.sessions > 0) await deps.afterPurge?.();
    } catch (err) {
      deps.logger.warn({ err }, 'purge failed; the next turn tries again');
    }
  };
  // A turn still running when the next is due makes the next one skip.
  const timer = deps.intervalS > 0 ? setInterval(() => { running ??= turn().finally(() => { running = undefined; }); }, deps.intervalS * 1000) : undefined;
  // A timer must not keep a stopping process alive.
  timer?.unref();
  return {
    purged: () => total,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
