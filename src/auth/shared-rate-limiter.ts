// Rate limits shared by every node of a MySQL deployment and every worker on one machine
// (design.md §10, §12): the counts live in rate_limit_hit, one atomic upsert per counted
// event, in fixed one-minute windows aligned on the clock, so RATE_LIMIT_* holds for the
// whole deployment and across restarts. A database
// that cannot be reached fails the request (503): Register fails closed rather than open.
import type { Knex } from 'knex';
import type { Database } from '../db/database.js';
import { translateDbError } from '../db/driver-errors.js';
import { writeTransaction } from '../db/write-transaction.js';
import { decision, rateWindowMs, unlimited, windowStartOf, type RateLimiter } from './rate-limiter.js';

export function createSharedRateLimiter(database: Database, bucket: string, limit: number, clock: () => Date, windowMs = rateWindowMs): RateLimiter {
  if (limit <= 0) return unlimited;
  let swept = 0;
  const windowOf = (now: number) => windowStartOf(now, windowMs);
  const hitsIn = async (q: Knex, key: string, window: number): Promise<number> => {
    const row = (await q('rate_limit_hit').where({ bucket, client_key: key, window_start: window }).first('hits')) as { hits: number | string } | undefined;
    return Number(row?.hits ?? 0);
  };
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      throw translateDbError(err);
    }
  };

  return {
    hit: (key) => guarded(async () => {
      const now = clock().getTime();
      const window = windowOf(now);
      // The upsert and the read share one connection, so the count read includes this event.
      const hits = await writeTransaction(database, async (trx) => {
        // ON DUPLICATE KEY UPDATE on MySQL, ON CONFLICT DO UPDATE on SQLite.
        await trx('rate_limit_hit').insert({ bucket, client_key: key, window_start: window, hits: 1 })
          .onConflict(['bucket', 'client_key', 'window_start']).merge({ hits: trx.raw('hits + 1') });
        return hitsIn(trx, key, window);
      });
      // Windows before the current one are never read again: one node a window clears them.
      if (window > swept) {
        swept = window;
        await writeTransaction(database, (trx) => trx('rate_limit_hit').where('window_start', '<', window).del());
      }
      return decision(limit, hits, hits <= limit, now, windowMs);
    }),
    check: (key) => guarded(async () => {
      const now = clock().getTime();
      const hits = await hitsIn(database.knex, key, windowOf(now));
      return decision(limit, hits, hits < limit, now, windowMs);
    }),
  };
}
