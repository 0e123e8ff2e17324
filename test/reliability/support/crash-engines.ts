// The two engines the crash and backup tests run on, behind one face: the service's
// environment for the database, a fresh read of it, and the engine's own consistency
// check. MariaDB is a private server of the test's own (the shared one is never touched).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { connect, disconnect } from '../../../src/db/connect.js';
import { fold, foldFunction } from '../../../src/db/fold.js';
import { migrate } from '../../../src/db/migrate.js';
import type { Query } from './account-writes.js';
import { PrivateMariaDb } from './private-mariadb.js';

export interface CrashEngine {
  readonly name: 'sqlite' | 'mariadb';
  /** SQLITE_FILE or DATABASE_URL for the service. */
  readonly env: Record<string, string>;
  /** Runs `check` on a connection opened for it and closed after. */
  reading<T>(check: (query: Query) => Promise<T>): Promise<T>;
  /** `ok` when the engine finds the service's tables sound, else what it reports. */
  integrity(): Promise<string>;
  /**
   * Kills the engine's own process with SIGKILL and starts it again, recovering from its
   * log. SQLite has no process of its own: it dies with the service, so this does nothing.
   */
  crash(): Promise<void>;
  close(): Promise<void>;
}

/** A read-only connection to a SQLite file, with the fold function its search indexes need. */
export function readSqlite(file: string): Database.Database {
  const conn = new Database(file, { readonly: true, fileMustExist: true });
  conn.pragma('busy_timeout = 5000');
  conn.function(foldFunction, { deterministic: true }, (v: unknown) => (typeof v === 'string' ? fold(v) : v));
  return conn;
}

export async function sqliteEngine(): Promise<CrashEngine> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-crash-'));
  const file = path.join(dir, 'impianti.sqlite');
  const db = connect({ sqliteFile: file });
  await migrate(db);
  await disconnect(db);
  const reading = async <T>(check: (query: Query) => Promise<T>): Promise<T> => {
    const conn = readSqlite(file);
    try {
      return await check(async (sql) => conn.prepare(sql).all() as Array<Record<string, unknown>>);
    } finally {
      conn.close();
    }
  };
  return {
    name: 'sqlite', env: { SQLITE_FILE: file }, reading, crash: async () => undefined,
    integrity: () => reading(async (q) => (await q('PRAGMA integrity_check')).map((r) => String(r['integrity_check'])).join('; ')),
    close: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

export interface MariaDbEngine extends CrashEngine {
  readonly server: PrivateMariaDb;
  readonly database: string;
}

/** `reading` on another database of the same server (a restored dump). */
export async function readMysql<T>(url: string, check: (query: Query) => Promise<T>): Promise<T> {
  const db = connect({ databaseUrl: url, poolMax: 1 });
  try {
    return await check(async (sql) => ((await db.knex.raw(sql)) as [Array<Record<string, unknown>>])[0]);
  } finally {
    await disconnect(db);
  }
}

export async function mariadbEngine(): Promise<MariaDbEngine> {
  const server = await PrivateMariaDb.create();
  try {
    await server.start();
    const admin = connect({ databaseUrl: `${server.url}/mysql`, poolMax: 1 });
    await admin.knex.raw('CREATE DATABASE impianti CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    await disconnect(admin);
    const url = `${server.url}/impianti`;
    // Two connections: the migration lock holds one while the migrations run on the other.
    const db = connect({ databaseUrl: url, poolMax: 2 });
    await migrate(db);
    await disconnect(db);
    return {
      name: 'mariadb', env: { DATABASE_URL: url }, server, database: 'impianti',
      reading: (check) => readMysql(url, check),
      crash: async () => {
        await server.kill();
        await server.start();
      },
      integrity: () => readMysql(url, async (q) => {
        const rows = await q('CHECK TABLE app_user, app_user_role, auth_session, refresh_token');
        const bad = rows.filter((r) => r['Msg_type'] === 'error' || (r['Msg_type'] === 'status' && r['Msg_text'] !== 'OK'));
        return bad.length === 0 ? 'ok' : bad.map((r) => `${String(r['Table'])}: ${String(r['Msg_text'])}`).join('; ');
      }),
      close: () => server.destroy(),
    };
  } catch (err) {
    await server.destroy();
    throw err;
  }
}
