// Builds the Knex instance: MySQL through mysql2 when DATABASE_URL is set, otherwise an
// embedded SQLite file through better-sqlite3 (so `make run` needs no server).
import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import type Database from 'better-sqlite3';
import { fold, foldFunction } from './fold.js';

export interface DbOptions {
  readonly databaseUrl?: string | undefined;
  readonly sqliteFile?: string | undefined;
  readonly poolMax?: number;
}

export function connect(options: DbOptions): Knex {
  if (options.databaseUrl) return connectMysql(options.databaseUrl, options.poolMax ?? 10);
  return connectSqlite(options.sqliteFile ?? 'data/impianti.sqlite');
}

function connectMysql(url: string, poolMax: number): Knex {
  const u = new URL(url);
  return knex({
    client: 'mysql2',
    connection: {
      host: u.hostname,
      port: Number(u.port || 3306),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      database: decodeURIComponent(u.pathname.replace(/^\//, '')),
      charset: 'utf8mb4',
      // DATETIME columns hold UTC (DECISIONS §9): read and write them as UTC whatever the host's zone.
      timezone: 'Z',
      supportBigNumbers: true,
      bigNumberStrings: true,
      connectTimeout: 2000,
    },
    pool: {
      min: 0,
      max: poolMax,
      // A dead server must surface as a quick 503, not a request that hangs in the pool queue.
      acquireTimeoutMillis: 2000,
      afterCreate: (conn: { query: (sql: string, cb: (err: Error | null) => void) => void }, done: (err: Error | null, c: unknown) => void) => {
        conn.query("SET time_zone = '+00:00'", (err) => done(err, conn));
      },
    },
    acquireConnectionTimeout: 2000,
  });
}

function connectSqlite(file: string): Knex {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return knex({
    client: 'better-sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    pool: {
      // better-sqlite3 is synchronous: one connection serializes writes and avoids SQLITE_BUSY.
      min: 1,
      max: 1,
      afterCreate: (conn: Database.Database, done: (err: Error | null, c: unknown) => void) => {
        try {
          conn.pragma('journal_mode = WAL');
          conn.pragma('foreign_keys = ON');
          conn.pragma('busy_timeout = 5000');
          conn.function(foldFunction, { deterministic: true }, (v: unknown) => (typeof v === 'string' ? fold(v) : v));
          done(null, conn);
        } catch (err) {
          done(err as Error, conn);
        }
      },
    },
  });
}
