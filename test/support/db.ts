// A fresh, migrated database per suite: a temporary SQLite file, or a uniquely named
// MySQL database on the test server. Suites never share state, so order doesn't matter.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { connect, disconnect } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import type { Dialect } from '../../src/db/dialect.js';
import { migrate } from '../../src/db/migrate.js';
import { mysqlTestUrl } from './dialects.js';

export interface TestDb {
  /** The handle connect() returned. */
  readonly db: Database;
  /** Its Knex (`db.knex`), for the tests' own SQL. */
  readonly knex: Knex;
  readonly dialect: Dialect;
  /** What DATABASE_URL / SQLITE_FILE would be to reach this database. */
  readonly databaseUrl: string | undefined;
  readonly sqliteFile: string | undefined;
  drop(): Promise<void>;
}

let counter = 0;

/** `server`: the MySQL server to create the database on (the shared test server unless named). */
export async function createTestDb(dialect: Dialect, options: { migrate?: boolean; server?: string } = {}): Promise<TestDb> {
  const tag = `${process.pid}_${Date.now().toString(36)}_${counter++}`;
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-test-'));
    const sqliteFile = path.join(dir, 'test.sqlite');
    const db = connect({ sqliteFile });
    if (options.migrate !== false) await migrate(db);
    return {
      db, knex: db.knex, dialect, databaseUrl: undefined, sqliteFile,
      drop: async () => { await disconnect(db); fs.rmSync(dir, { recursive: true, force: true }); },
    };
  }
  const name = `impianti_t_${tag}`;
  const server = options.server ?? mysqlTestUrl;
  const admin = connect({ databaseUrl: server, poolMax: 1 });
  await admin.knex.raw('CREATE DATABASE ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci', [name]);
  await disconnect(admin);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const db = connect({ databaseUrl });
  if (options.migrate !== false) await migrate(db);
  return {
    db, knex: db.knex, dialect, databaseUrl, sqliteFile: undefined,
    drop: async () => {
      await disconnect(db);
      const cleanup = connect({ databaseUrl: server, poolMax: 1 });
      await cleanup.knex.raw('DROP DATABASE IF EXISTS ??', [name]);
      await disconnect(cleanup);
    },
  };
}

export type { Knex };
export { knex };
