// Turns the nodes of one deployment take (migrations, the purge, the maintenance): a lease
// row per lock in `service_lock`, taken by an upsert and renewed while its work runs
// (design.md §12). A row replicates like any write, so the lease holds
// across a Galera cluster, where GET_LOCK and LOCK TABLES are local to one node; two nodes
// that take it at once meet as a certification conflict, and the write retries see the
// winner's row. A node that dies holding a lease leaves it until the lease runs out.
import crypto from 'node:crypto';
import type { Database } from './database.js';
import { writeTransaction } from './write-transaction.js';

/** How long a lease lasts unless renewed; renewed at a third of it while the work runs. */
const leaseSeconds = 30;
const renewMs = (leaseSeconds * 1000) / 3;
const pollMs = 250;

/**
 * The leases' table: made by migration 009 and, before a migration runs, by migrate(),
 * since the migrations themselves run under a lease. Every Galera table needs a primary key.
 */
export const createLockTable = `CREATE TABLE IF NOT EXISTS service_lock (
  name VARCHAR(64) NOT NULL PRIMARY KEY,
  holder CHAR(36) NOT NULL,
  expires_at DATETIME(3) NOT NULL
)`;

// The row is this holder's when it was free, ran out, or was already this holder's; the
// assignments run left to right, so `expires_at` moves only when `holder` is now this one.
// The clock is the database's, the same for every node of the deployment.
const take = `INSERT INTO service_lock (name, holder, expires_at) VALUES (?, ?, UTC_TIMESTAMP(3) + INTERVAL ${leaseSeconds} SECOND)
  ON DUPLICATE KEY UPDATE
    holder = IF(expires_at < UTC_TIMESTAMP(3), VALUES(holder), holder),
    expires_at = IF(holder = VALUES(holder), VALUES(expires_at), expires_at)`;

async function tryTake(database: Database, name: string, holder: string): Promise<boolean> {
  return writeTransaction(database, async (trx) => {
    await trx.raw(take, [name, holder]);
    const row = (await trx('service_lock').where({ name }).first('holder')) as { holder: string } | undefined;
    return row?.holder === holder;
  });
}

/**
 * Runs `work` while this node holds the lease `name`, waiting up to `waitSeconds` for it
 * (0: try once). Resolves `{ held: false }` without running `work` when another node kept it.
 */
export async function withNamedLock<T>(database: Database, name: string, waitSeconds: number, work: () => Promise<T>): Promise<{ held: true; value: T } | { held: false }> {
  const holder = crypto.randomUUID();
  const until = Date.now() + waitSeconds * 1000;
  while (!(await tryTake(database, name, holder))) {
    if (Date.now() + pollMs > until) return { held: false };
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  // A renewal that fails leaves the lease to run out; the next renewal tries again.
  const renewal = setInterval(() => void tryTake(database, name, holder).catch(() => undefined), renewMs);
  try {
    return { held: true, value: await work() };
  } finally {
    clearInterval(renewal);
    await database.knex('service_lock').where({ name, holder }).del();
  }
}
