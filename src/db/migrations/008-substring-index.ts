// The substring index (design.md §8, "Substring index"): a trigram table per string field
// that takes Contains, filled from the rows already there and kept current by triggers. The
// fields are this migration's own list, not the catalog's of the day: a field the catalog
// marks later needs a migration of its own (test/unit/substring-index-catalog.test.ts).
import type { Knex } from 'knex';
import { searchCollation } from '../collation.js';
import type { Database } from '../database.js';
import type { Dialect } from '../dialect.js';
import { writeTransaction } from '../write-transaction.js';
import { fillStatements, mysqlTrigramDeferral } from '../substring-index/substring-index-deferred.js';
import { createIndexTable, indexesOf, positionsNeeded, positionsTable, trigramTriggerNames, trigramTriggers, type SubstringIndex } from '../substring-index/substring-index.js';

export const name = '008-substring-index';

export const indexes: readonly SubstringIndex[] = [
  { table: 'caratteristica_gruppo', column: 'descrizione', index: 'caratteristica_gruppo_descrizione_trigrams', length: 255 },
  { table: 'soggetto_recapito', column: 'recapito', index: 'soggetto_recapito_recapito_trigrams', length: 255 },
  { table: 'soggetto_recapito', column: 'codice_esterno', index: 'soggetto_recapito_codice_esterno_trigrams', length: 100 },
];

// Each table is filled and given its triggers in a transaction of its own (below).
export const config = { transaction: false };

/**
 * SQLite: the index, its fill and its triggers in one transaction (DDL is transactional there),
 * so no write of another connection falls between the fill and the triggers.
 */
async function upSqlite(db: Knex, table: string): Promise<void> {
  const own = indexesOf(table, indexes);
  await db.transaction(async (trx) => {
    for (const s of own) await createIndexTable(trx, 'sqlite', s, undefined);
    for (const { sql, bindings } of fillStatements('sqlite', table, 'all', indexes)) await trx.raw(sql, bindings);
    for (const s of own) for (const statement of trigramTriggers('sqlite', s)) await trx.raw(statement);
  });
}

/**
 * MySQL: DDL commits at once, so the triggers come first and the fill after them, in a
 * transaction of its own: a row written from then on is indexed by its trigger, and the
 * fill's INSERT ... SELECT reads the latest rows under InnoDB's shared locks, so no write
 * falls between (IGNORE: its trigger may have put those grams there already). No LOCK
 * TABLES, which a Galera cluster does not support; a write replicated from another node
 * that meets the fill's locks aborts the fill, which runs again (write-transaction.ts).
 */
async function upMysql(db: Knex, database: Database, table: string, collation: string): Promise<void> {
  const own = indexesOf(table, indexes);
  for (const s of own) await createIndexTable(db, 'mysql', s, collation);
  for (const s of own) for (const statement of trigramTriggers('mysql', s)) await db.raw(statement);
  const fill = mysqlTrigramDeferral(table, indexes).beforeCommit('all').map((s) => ({ ...s, sql: s.sql.replace(/^INSERT INTO/, 'INSERT IGNORE INTO') }));
  await writeTransaction(database, async (trx) => {
    for (const { sql, bindings } of fill) await trx.raw(sql, bindings);
  });
}

/** Whether a failed run left any of this migration's tables behind (its triggers come after them). */
async function leftBehind(db: Knex, dialect: Dialect): Promise<boolean> {
  const names = [positionsTable, ...indexes.map((s) => s.index)];
  const found = dialect === 'mysql'
    ? await db('information_schema.tables').whereRaw('table_schema = DATABASE()').whereIn('table_name', names).first('table_name')
    : await db('sqlite_master').whereIn('name', names).first('name');
  return found !== undefined;
}

export async function up(db: Knex, database: Database): Promise<void> {
  const { dialect } = database;
  // What a failed run left behind goes first, so that the migration can run again.
  if (await leftBehind(db, dialect)) await down(db);
  if (dialect === 'mysql') {
    await db.schema.createTable(positionsTable, (t) => t.smallint('n').unsigned().primary());
    await db(positionsTable).insert(Array.from({ length: positionsNeeded(indexes) }, (_, i) => ({ n: i + 1 })));
  }
  const collation = dialect === 'mysql' ? await searchCollation(db) : undefined;
  for (const table of new Set(indexes.map((s) => s.table))) {
    if (dialect === 'sqlite') await upSqlite(db, table);
    else await upMysql(db, database, table, collation!);
  }
}

export async function down(db: Knex): Promise<void> {
  for (const s of indexes) {
    for (const trigger of trigramTriggerNames(s)) await db.raw(`DROP TRIGGER IF EXISTS ${trigger}`);
    await db.raw(`DROP TABLE IF EXISTS ${s.index}`);
  }
  await db.schema.dropTableIfExists(positionsTable);
}
