// Runs pending migrations. The list is explicit (no directory scan), so the compiled
// service and the tests run the same migrations whatever their working directory.
import type { Knex } from 'knex';
import * as queryTables from './migrations/001-query-tables.js';
import * as accounts from './migrations/002-accounts.js';
import * as impianti from './migrations/003-impianti.js';

interface Migration {
  readonly name: string;
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

const migrations: readonly Migration[] = [queryTables, accounts, impianti];

const source: Knex.MigrationSource<Migration> = {
  getMigrations: async () => [...migrations],
  getMigrationName: (m) => m.name,
  getMigration: async (m) => m,
};

export async function migrate(db: Knex): Promise<void> {
  await db.migrate.latest({ migrationSource: source });
}

export async function rollbackAll(db: Knex): Promise<void> {
  await db.migrate.rollback({ migrationSource: source }, true);
}
