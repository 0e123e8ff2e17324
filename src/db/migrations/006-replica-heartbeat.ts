// How far behind the primary each read replica is (design.md §12): nodes with replicas
// stamp this one row on the primary with the primary's clock; a replica's copy of the
// stamp, against the replica's clock, is how stale its answers may be. Replication itself
// is the engine's own; this only measures it.
import type { Knex } from 'knex';

export const name = '006-replica-heartbeat';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('replica_heartbeat', (t) => {
    t.integer('id').primary();
    t.datetime('beat', { precision: 6 }).notNullable();
  });
  await db('replica_heartbeat').insert({ id: 1, beat: new Date() });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('replica_heartbeat');
}
