// The two engines the service runs on, and how to tell which one a Knex instance talks to.
import type { Knex } from 'knex';

export type Dialect = 'mysql' | 'sqlite';

export function dialectOf(db: Knex): Dialect {
  const client = String(db.client.config.client);
  return client.startsWith('mysql') ? 'mysql' : 'sqlite';
}
