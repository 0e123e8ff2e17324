// The leases by which the nodes of one deployment take turns (db/named-lock.ts): a row per
// lock, which replicates like any write, so the turns hold on a Galera cluster too.
import type { Knex } from 'knex';
import { createLockTable } from '../named-lock.js';

export const name = '009-service-lock';

export async function up(db: Knex): Promise<void> {
  // IF NOT EXISTS: on MySQL migrate() has made it already, to run this very migration under a lease.
  await db.raw(createLockTable);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('service_lock');
}
