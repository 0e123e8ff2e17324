// Installations and their file trees (design.md §6, §8). Binary content lives
// outside the database; `percorso_storage` locates it and is never selected by the API.
import type { Knex } from 'knex';
import { searchCollation } from '../collation.js';
import type { Database } from '../database.js';

export const name = '003-impianti';

export async function up(db: Knex, database: Database): Promise<void> {
  const mysql = database.dialect === 'mysql';
  const collation = mysql ? await searchCollation(db) : undefined;
  await db.schema.createTable('impianto', (t) => {
    t.increments('id');
    t.string('nome', 200).notNullable();
  });
  await db.schema.createTable('impianto_file', (t) => {
    t.increments('id');
    const nome = t.string('nome', 255).notNullable();
    if (collation) nome.collate(collation);
    t.boolean('is_folder').notNullable().defaultTo(false);
    t.integer('folder_id').unsigned().nullable().references('id').inTable('impianto_file').onDelete('CASCADE');
    t.integer('impianto_id').unsigned().nullable().references('id').inTable('impianto').onDelete('CASCADE');
    t.datetime('data_creazione', { precision: 3 }).notNullable();
    t.datetime('data_aggiornamento', { precision: 3 }).notNullable();
    t.string('percorso_storage', 1024).nullable();
    t.index(['impianto_id', 'folder_id'], 'ix_impianto_file_impianto_folder');
    t.index(['folder_id'], 'ix_impianto_file_folder');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('impianto_file');
  await db.schema.dropTableIfExists('impianto');
}
