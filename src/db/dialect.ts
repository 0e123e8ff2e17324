// The two engines the service runs on, and how to tell which one a Knex instance talks to.
import type { Knex } from 'knex';

export type Dialect = 'mysql' | 'sqlite';

const known = new WeakMap<Knex, Dialect>();

/**
 * Read off what Knex renders, its public output: an insert that ignores conflicts is MySQL's
 * INSERT IGNORE and SQLite's ON CONFLICT DO NOTHING. Works for any instance, a
 * transaction's included; remembered per instance.
 */
export function dialectOf(db: Knex): Dialect {
  let dialect = known.get(db);
  if (dialect === undefined) {
    const probe = db('t').insert({ c: 1 }).onConflict('c').ignore().toQuery();
    known.set(db, (dialect = /^insert ignore/i.test(probe) ? 'mysql' : 'sqlite'));
  }
  return dialect;
}
