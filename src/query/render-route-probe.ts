// The render stage's SQL for the substring route's probes (substring-routes.ts decides with
// their answers): how many rows an FTS5 phrase allows, up to a bound (SQLite), and MariaDB's
// own row estimate of each gram, read off one EXPLAIN (MySQL). Identifiers come from the
// catalog's trigram table names; every value is a `?` parameter.
import type { Knex } from 'knex';
import type { Statement } from './statements.js';

/** COUNT(*) of at most `upTo` rows of the FTS5 table `index` that match `phrase`: the count stops there. */
export function phraseCount(db: Knex, index: string, phrase: string, upTo: number): Statement {
  const candidates = db(index).select(db.raw('1')).whereRaw('?? MATCH ?', [index, phrase]).limit(upTo);
  return db.count({ n: '*' }).from(candidates.as('c')).toSQL().toNative() as Statement;
}

/**
 * EXPLAIN of a UNION ALL of one lookup per gram in the trigram table `index`: one plan row
 * per gram, numbered by its SELECT (`id` i + 1 for grams[i]), whose `rows` is the optimizer's
 * dive into the primary key, in one round trip. A count would read every row of a common gram.
 */
export function gramEstimates(db: Knex, index: string, grams: readonly string[]): Statement {
  const [first, ...rest] = grams.map((gram) => db(index).select(db.raw('1')).where('gram', gram));
  const { sql, bindings } = (rest.length === 0 ? first! : first!.unionAll(rest)).toSQL().toNative();
  return { sql: `EXPLAIN ${sql}`, bindings: bindings as Statement['bindings'] };
}
