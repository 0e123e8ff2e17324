// Runs pending migrations. The list is explicit (no directory scan), so the compiled
// service and the tests run the same migrations whatever their working directory.
import type { Knex } from 'knex';
import type { Database } from './database.js';
import { createLockTable, withNamedLock } from './named-lock.js';
import { bumpAllVersions } from './table-versions/table-versions.js';
import * as queryTables from './migrations/001-query-tables.js';
import * as accounts from './migrations/002-accounts.js';
import * as impianti from './migrations/003-impianti.js';
import * as operatorDefaults from './migrations/004-operator-defaults.js';
import * as rateLimits from './migrations/005-rate-limits.js';
import * as replicaHeartbeat from './migrations/006-replica-heartbeat.js';
import * as tableVersions from './migrations/007-table-versions.js';
import * as substringIndex from './migrations/008-substring-index.js';
import * as serviceLock from './migrations/009-service-lock.js';

/**
 * `db`: what knex runs the migration on (its transaction, unless `config` says otherwise);
 * `database`: the handle it belongs to, for the dialect and writeTransaction.
 */
interface Migration {
  readonly name: string;
  up(db: Knex, database: Database): Promise<void>;
  down(db: Knex, database: Database): Promise<void>;
  /** `{ transaction: false }`: the migration manages its own (knex's per-migration option). */
  readonly config?: { readonly transaction: boolean };
}

const migrations: readonly Migration[] = [queryTables, accounts, impianti, operatorDefaults, rateLimits, replicaHeartbeat, tableVersions, substringIndex, serviceLock];

/** The names knex records in `knex_migrations`, in order: a database's migration level is how many of them it holds. */
export const migrationNames: readonly string[] = migrations.map((m) => m.name);

/** The migrations as knex runs them: each called with the Knex its runner gives it, and `database`. */
const sourceFor = (database: Database): Knex.MigrationSource<Migration> => ({
  getMigrations: async () => [...migrations],
  getMigrationName: (m) => m.name,
  getMigration: async (m) => ({
    ...(m.config ? { config: m.config } : {}),
    up: (db: Knex) => m.up(db, database),
    down: (db: Knex) => m.down(db, database),
  }),
});

const lockName = 'impianti_api_migrate';
const lockWaitSeconds = 120;

export async function migrate(database: Database): Promise<void> {
  const db = database.knex;
  if (await isCurrent(db)) return;
  if (database.dialect !== 'mysql') return void (await latest(database));
  // Several nodes may start at once on one database. knex's own lock is not enough there:
  // it creates its lock table check-then-create, refuses instead of waiting, and on MySQL
  // the first DDL commits its lock row early. A lease serialises start-ups.
  await db.raw(createLockTable);
  const run = await withNamedLock(database, lockName, lockWaitSeconds, () => latest(database));
  if (!run.held) throw new Error(`could not take the migration lock "${lockName}" within ${lockWaitSeconds} s`);
}

/**
 * The pending migrations; then every table's version moves, since a migration may change
 * what an answer holds in ways no trigger sees (DDL, a rebuilt table: design.md §8).
 */
async function latest(database: Database): Promise<void> {
  const [, applied] = (await database.knex.migrate.latest({ migrationSource: sourceFor(database) })) as [number, string[]];
  if (applied.length > 0) await bumpAllVersions(database);
}

/**
 * Whether the database already holds every migration, in order: then a node starts with
 * one read and no write (design.md §8). Any error (no table yet) leaves the answer to knex.
 */
async function isCurrent(db: Knex): Promise<boolean> {
  try {
    const done = (await db('knex_migrations').select('name').orderBy('id')) as Array<{ name: string }>;
    return done.length === migrationNames.length && done.every((row, i) => row.name === migrationNames[i]);
  } catch {
    return false;
  }
}

