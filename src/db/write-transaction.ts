// Write transactions that never fail on meeting another writer (design.md §10). Several
// worker processes write one SQLite file. A transaction that reads before it writes holds a
// read snapshot, and when another process has committed since, SQLite refuses its first
// write with SQLITE_BUSY at once, without waiting under busy_timeout (waiting could not help:
// its snapshot is stale). BEGIN IMMEDIATE avoids that by taking the write lock first.
// Knex's transaction API begins every transaction with a plain BEGIN and has no option for
// IMMEDIATE, so the transaction's first statement is a write that changes nothing: SQLite
// takes the write lock at a transaction's first write exactly as at BEGIN IMMEDIATE,
// waiting under busy_timeout while another process holds it, and the transaction never
// upgrades a read. On MySQL InnoDB locks rows, and Knex's transaction is used as it is.
//
// A transaction the database refused whole, or one that failed before its COMMIT was sent,
// runs again, a few times (driver-errors.ts, mayRunAgain): so a deadlock victim, a Galera
// certification conflict or a node lost under a write costs a retry, not an error.
import type { Knex } from 'knex';
import type { Database } from './database.js';
import { probeNodes } from './connect.js';
import { lostNode, mayRunAgain } from './driver-errors.js';

/** A write to the service's own scratch table that matches no row. */
const takeWriteLock = 'DELETE FROM rate_limit_hit WHERE 0';

const attempts = 4;

/** Runs `work` in a transaction of `database`: `work` writes through `trx`, and takes what differs by engine from `database.dialect`. */
export async function writeTransaction<T>(database: Database, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const sqlite = database.dialect === 'sqlite';
  for (let attempt = 1; ; attempt++) {
    let commitSent = false;
    try {
      return await database.knex.transaction(async (trx) => {
        if (sqlite) await trx.raw(takeWriteLock);
        const value = await work(trx);
        commitSent = true;
        return value;
      });
    } catch (err) {
      if (attempt >= attempts || !mayRunAgain(err, commitSent)) throw err;
      // A lost node is taken out before the next attempt (node-set.ts); two writers that met
      // wait apart, at random, so that they do not meet again.
      if (lostNode(err)) await probeNodes(database);
      else await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
