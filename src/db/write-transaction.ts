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
import type { Knex } from 'knex';
import { dialectOf } from './dialect.js';

/** A write to the service's own scratch table that matches no row. */
const takeWriteLock = 'DELETE FROM rate_limit_hit WHERE 0';

export function writeTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  if (dialectOf(db) === 'mysql') return db.transaction(work);
  return db.transaction(async (trx) => {
    await trx.raw(takeWriteLock);
    return work(trx);
  });
}
