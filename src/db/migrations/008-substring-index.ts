// The substring index (design.md §8, "Substring index"): a trigram table per field the
// catalog marks, filled from the rows already there and kept current by triggers.
import type { Knex } from 'knex';
import { searchCollation } from '../collation.js';
import { dialectOf } from '../dialect.js';
import { fillStatements, mysqlTrigramDeferral } from '../substring-index-deferred.js';
import { createIndexTable, positionsNeeded, positionsTable, substringIndexes, trigramTriggerNames, trigramTriggers } from '../substring-index.js';

export const name = '008-substring-index';

// Each table's fill is a transaction of its own, so that MySQL builds the index by sorting.
export const config = { transaction: false };

export async function up(db: Knex): Promise<void> {
  const dialect = dialectOf(db);
  const collation = dialect === 'mysql' ? await searchCollation(db) : undefined;
  if (dialect === 'mysql') {
    await db.schema.createTable(positionsTable, (t) => t.smallint('n').unsigned().primary());
    await db(positionsTable).insert(Array.from({ length: positionsNeeded() }, (_, i) => ({ n: i + 1 })));
  }
  for (const s of substringIndexes) await createIndexTable(db, dialect, s, collation);
  for (const table of new Set(substringIndexes.map((s) => s.table))) {
    const fill = dialect === 'mysql' ? mysqlTrigramDeferral(table, 'all').beforeCommit : fillStatements(dialect, table, 'all');
    await db.transaction(async (trx) => {
      for (const { sql, bindings } of fill) await trx.raw(sql, bindings);
    });
  }
  for (const s of substringIndexes) for (const statement of trigramTriggers(dialect, s)) await db.raw(statement);
}

export async function down(db: Knex): Promise<void> {
  for (const s of substringIndexes) {
    for (const trigger of trigramTriggerNames(s)) await db.raw(`DROP TRIGGER IF EXISTS ${trigger}`);
    await db.raw(`DROP TABLE IF EXISTS ${s.index}`);
  }
  await db.schema.dropTableIfExists(positionsTable);
}
