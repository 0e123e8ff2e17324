// Tables searched by the AutoQuery operations (design.md §8). String columns get the
// case- and accent-insensitive NO PAD collation on MySQL, and fold() expression
// indexes on SQLite, so that every string filter can use an index on both engines.
import type { Knex } from 'knex';
import { searchCollation } from '../collation.js';
import type { Database } from '../database.js';
import { fieldIndexName } from '../index-names.js';

export const name = '001-query-tables';

export async function up(db: Knex, database: Database): Promise<void> {
  const mysql = database.dialect === 'mysql';
  const collation = mysql ? await searchCollation(db) : undefined;
  const text = (t: Knex.CreateTableBuilder, column: string, length: number) => {
    const c = t.string(column, length).nullable();
    if (collation) c.collate(collation);
  };

  await db.schema.createTable('caratteristica_gruppo', (t) => {
    t.increments('id');
    text(t, 'descrizione', 255);
    t.integer('tipo_caratteristica_sezione_id').notNullable();
    t.boolean('is_disattiva').notNullable().defaultTo(false);
    t.integer('icona_immagine_id').notNullable();
    t.integer('ordine_vista').notNullable();
    if (mysql) t.charset('utf8mb4');
  });
  await db.schema.createTable('soggetto_recapito', (t) => {
    t.increments('id');
    t.integer('soggetto_id').notNullable();
    t.integer('tipo_recapito_id').notNullable();
    text(t, 'recapito', 255);
    text(t, 'codice_esterno', 100);
    if (mysql) t.charset('utf8mb4');
  });

  const indexes: Array<[string, string, boolean]> = [
    ['caratteristica_gruppo', 'descrizione', true],
    ['caratteristica_gruppo', 'tipo_caratteristica_sezione_id', false],
    ['caratteristica_gruppo', 'is_disattiva', false],
    ['caratteristica_gruppo', 'icona_immagine_id', false],
    ['caratteristica_gruppo', 'ordine_vista', false],
    ['soggetto_recapito', 'soggetto_id', false],
    ['soggetto_recapito', 'tipo_recapito_id', false],
    ['soggetto_recapito', 'recapito', true],
    ['soggetto_recapito', 'codice_esterno', true],
  ];
  for (const [table, column, isText] of indexes) {
    const index = fieldIndexName(table, column);
    if (!mysql && isText) await db.raw(`CREATE INDEX ?? ON ?? (fold(??))`, [index, table, column]);
    else await db.schema.alterTable(table, (t) => t.index([column], index));
  }
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('soggetto_recapito');
  await db.schema.dropTableIfExists('caratteristica_gruppo');
}
