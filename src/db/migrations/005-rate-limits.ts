// Rate-limit counts shared by every node (design.md §12): one row per limit, client key and
// one-minute window. Old windows are never read again and are deleted as new ones start.
import type { Knex } from 'knex';

export const name = '005-rate-limits';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('rate_limit_hit', (t) => {
    t.string('bucket', 32).notNullable();
    t.string('client_key', 64).notNullable();
    t.bigInteger('window_start').notNullable();
    t.integer('hits').notNullable();
    t.primary(['bucket', 'client_key', 'window_start']);
    t.index(['window_start'], 'ix_rate_limit_hit_window');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('rate_limit_hit');
}
