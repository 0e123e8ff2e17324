// The table versions the entity tags are built on (design.md §8, "Table versions"): one row
// per versioned table, moved by AFTER INSERT, UPDATE and DELETE triggers on it, so every
// write moves it, whoever writes. The first version is the clock's (table-versions.ts).
import type { Knex } from 'knex';
import type { Database } from '../database.js';
import { nextVersion, triggerNames, triggerStatements, versionedTables } from '../table-versions/table-versions.js';

export const name = '007-table-versions';

export async function up(db: Knex, database: Database): Promise<void> {
  await db.schema.createTable('table_versions', (t) => {
    t.string('table_name', 64).primary();
    t.bigInteger('version').notNullable();
  });
  await db('table_versions').insert(versionedTables.map((table) => ({ table_name: table, version: 0 })));
  const { dialect } = database;
  await db.raw(`UPDATE table_versions SET version = ${nextVersion[dialect]}`);
  for (const table of versionedTables) {
    for (const statement of triggerStatements(dialect, table)) await db.raw(statement);
  }
}

export async function down(db: Knex): Promise<void> {
  for (const table of versionedTables) {
    for (const trigger of triggerNames(table)) await db.raw(`DROP TRIGGER IF EXISTS ${trigger}`);
  }
  await db.schema.dropTableIfExists('table_versions');
}
