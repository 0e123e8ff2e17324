// Opens a database and returns its handle (database.ts): MySQL through mysql2 when
// DATABASE_URL is set, otherwise an embedded SQLite file through better-sqlite3 (so `make run`
// needs no server); with the read path's own connections (db/reads/select.ts), which
// `disconnect` closes with the Knex pool.
import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import Sqlite from 'better-sqlite3';
import { createConnection, type Connection } from 'mysql2';
import { fold, foldFunction } from './fold.js';
import { parseMysqlUrl, type MysqlTarget } from '../database-url.js';
import type { Database, Target } from './database.js';
import type { Dialect } from './dialect.js';
import { createNodeSet, type NodeSet, type NodeState } from './nodes/node-set.js';
import { createMysqlReadPool } from './reads/mysql-read-pool.js';
import { mysqlReads } from './reads/mysql-reads.js';
import { knexReads } from './reads/knex-reads.js';
import type { ReadExecutor } from './reads/read-executor.js';
import { closeReads } from './reads/select.js';
import { sqliteReads, type SqliteReads } from './reads/sqlite-reads.js';

export interface DbOptions {
  readonly databaseUrl?: string | undefined;
  readonly sqliteFile?: string | undefined;
  readonly poolMax?: number;
  /**
   * MySQL only: the server aborts any statement of this pool running longer, and lock
   * waits give up as soon (rounded up to seconds). This is QUERY_TIMEOUT_MS for the
   * queries and files reads (db/reads/select.ts), and it bounds the rest (sign-in,
   * registration) so no request can hold a pooled connection forever behind a lock.
   * Leave it out for migrations and bulk loads.
   */
  readonly statementTimeoutMs?: number;
  /** Where knex's own warnings go (its console by default). */
  readonly log?: Knex.Config['log'];
  /** Hears a cluster node taken out or put back (node-set.ts). */
  readonly onNodeChange?: (state: NodeState) => void;
}

// A Galera node that stops answering is out within a probe's timeout plus its interval, well
// inside the time Galera itself takes to drop it from the view (design.md §12).
const nodeProbeMs = 500;
const nodeProbeTimeoutMs = 1000;

export function connect(options: DbOptions): Database {
  if (options.databaseUrl === undefined) return connectSqlite(options.sqliteFile ?? 'data/impianti.sqlite');
  const target = parseMysqlUrl(options.databaseUrl);
  const nodes = createNodeSet(target, { probeMs: nodeProbeMs, probeTimeoutMs: nodeProbeTimeoutMs, ...(options.onNodeChange ? { onChange: options.onNodeChange } : {}) });
  return connectMysql(mysqlConnectionOf(target, nodes), nodes, options.poolMax ?? 10, options.statementTimeoutMs, options.log);
}

function handle(db: Knex, dialect: Dialect, target: Target, open: () => ReadExecutor, nodes: NodeSet | undefined, sqlite: SqliteReads | undefined): Database {
  return { knex: db, dialect, reads: { open, executor: undefined, watchers: new Set() }, nodes, sqliteReads: sqlite, target, parts: new Map() };
}

/** Probes the nodes of `database`'s cluster now (node-set.ts), for a read that met a lost node; nothing elsewhere. */
export async function probeNodes(database: Database): Promise<void> {
  await database.nodes?.probeNow();
}

/** The nodes of `database`'s MySQL server or cluster and whether each takes connections; empty on SQLite. */
export function nodeStates(database: Database): readonly NodeState[] {
  return database.nodes?.states() ?? [];
}

export type BulkConnection = { readonly dialect: 'mysql'; readonly conn: Connection } | { readonly dialect: 'sqlite'; readonly conn: Sqlite.Database };

/**
 * A connection of its own to `database`, set up as the pool's, for a bulk writer
 * (cli/load-writer-*.ts) that drives the driver directly: one prepared statement per row on
 * SQLite, LOAD DATA on MySQL. The caller closes it.
 */
export async function bulkConnection(database: Database): Promise<BulkConnection> {
  const { target } = database;
  if ('sqliteFile' in target) {
    const conn = new Sqlite(target.sqliteFile, { fileMustExist: true });
    setUpSqlite(conn);
    return { dialect: 'sqlite', conn };
  }
  const conn = createConnection(target.mysql);
  // A server that drops the idle connection fails the writer's next statement; without a
  // listener the driver's 'error' event would end the process instead.
  conn.on('error', () => undefined);
  const setup = sessionSetup(undefined, false);
  await new Promise<void>((resolve, reject) => setup(conn, (err) => (err ? reject(err) : resolve())));
  return { dialect: 'mysql', conn };
}

/** Closes `database`'s read connections, its Knex pool and its cluster probes. */
export async function disconnect(database: Database): Promise<void> {
  await closeReads(database);
  await database.knex.destroy();
  database.nodes?.close();
}

type Conn = { query: (sql: string, cb: (err: (Error & { errno?: number }) | null) => void) => void };

/** Per-connection session settings, run in order; a failure fails the connection. */
function sessionSetup(statementTimeoutMs: number | undefined, causal: boolean): (conn: Conn, done: (err: Error | null) => void) => void {
  // Lock waits (whole seconds) end a second after the statement limit, which stays the
  // one that fires where the server has it (MariaDB); on MySQL they bound the writes.
  const lockWait = statementTimeoutMs === undefined ? undefined : Math.ceil(statementTimeoutMs / 1000) + 1;
  const statements = [
    // DATETIME columns hold UTC (design.md §9).
    "SET time_zone = '+00:00'",
    ...(lockWait === undefined ? [] : [`SET SESSION lock_wait_timeout = ${lockWait}, SESSION innodb_lock_wait_timeout = ${lockWait}`]),
    // On a cluster a read waits until its node has applied every commit the cluster had
    // when the read began, so a client reads its own writes made through any node (design.md §12).
    ...(causal ? ['SET SESSION wsrep_sync_wait = 1'] : []),
  ];
  return (conn, done) => {
    const next = (i: number): void => {
      if (i < statements.length) return conn.query(statements[i]!, (err) => (err ? done(err) : next(i + 1)));
      if (statementTimeoutMs === undefined) return done(null);
      // MariaDB: max_statement_time, in seconds, every statement (ER_STATEMENT_TIMEOUT 1969).
      // MySQL lacks it (ER_UNKNOWN_SYSTEM_VARIABLE 1193) and bounds SELECTs with max_execution_time.
      conn.query(`SET SESSION max_statement_time = ${(statementTimeoutMs / 1000).toFixed(3)}`, (err) => {
        if (!err) return done(null);
        if (err.errno !== 1193) return done(err);
        conn.query(`SET SESSION max_execution_time = ${Math.round(statementTimeoutMs)}`, done);
      });
    };
    next(0);
  };
}

type MysqlConnection = ReturnType<typeof mysqlConnectionOf>;

/** mysql2's options for `target`, the same for Knex's pool and the read pool; `nodes` opens every socket. */
function mysqlConnectionOf(target: MysqlTarget, nodes: NodeSet) {
  return {
    stream: () => nodes.socket(),
    user: target.user,
    password: target.password,
    database: target.database,
    charset: 'utf8mb4',
    // DATETIME columns hold UTC (design.md §9): read and write them as UTC whatever the host's zone.
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: true,
    connectTimeout: 2000,
    // The read path's prepared statements (db/reads/mysql-reads.ts), per connection, least
    // recently used closed first. The server caps them for all its clients together
    // (max_prepared_stmt_count, 16,382 by default): 100 per connection leaves room for
    // many nodes of POOL_MAX connections, and holds the shapes a workload repeats.
    maxPreparedStatements: 100,
  };
}

// A dead server must surface as a quick 503, not a request that hangs in a pool's queue.
const acquireTimeoutMs = 2000;

function connectMysql(connection: MysqlConnection, nodes: NodeSet, poolMax: number, statementTimeoutMs: number | undefined, log: Knex.Config['log']): Database {
  // Causal reads on Knex's pool only: the writes and the accounts' reads, where a client
  // observes its own writes; the queries' reads on the read pool do not wait for them.
  const setup = sessionSetup(statementTimeoutMs, nodes.clustered);
  const readSetup = nodes.clustered ? sessionSetup(statementTimeoutMs, false) : setup;
  const db = knex({
    client: 'mysql2',
    connection,
    pool: {
      min: 0,
      max: poolMax,
      acquireTimeoutMillis: acquireTimeoutMs,
      // After a failed attempt tarn waits this long (200 ms by default) before the next one
      // for requests still waiting, so the waiting line drains quickly while the server is down.
      createRetryIntervalMillis: 20,
      afterCreate: (conn: Conn, done: (err: Error | null, c: unknown) => void) => setup(conn, (err) => done(err, conn)),
    },
    acquireConnectionTimeout: acquireTimeoutMs,
    ...(log ? { log } : {}),
  });
  // The reads' own pool, of the same size and session settings (design.md §8).
  const open = () => mysqlReads(createMysqlReadPool({ connection, max: poolMax, acquireTimeoutMs, setup: readSetup }));
  return handle(db, 'mysql', { mysql: connection }, open, nodes, undefined);
}

/** What every SQLite connection of the service needs: the fold function its indexes are built on. */
export function prepareSqlite(conn: Sqlite.Database): void {
  conn.function(foldFunction, { deterministic: true }, (v: unknown) => (typeof v === 'string' ? fold(v) : v));
}

/** A writing connection's settings. */
function setUpSqlite(conn: Sqlite.Database): void {
  conn.pragma('journal_mode = WAL');
  // Every commit is on disk before it is acknowledged, power loss included (design.md §8).
  conn.pragma('synchronous = FULL');
  conn.pragma('foreign_keys = ON');
  conn.pragma('busy_timeout = 5000');
  prepareSqlite(conn);
}

/**
 * The read path's read-only connection to a SQLite file (sqlite-reads.ts), opened on first
 * use; undefined for an in-memory database, which a second connection could not see.
 */
export function sqliteReaderOf(database: Database): Sqlite.Database | undefined {
  return database.sqliteReads?.connection();
}

function connectSqlite(file: string): Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    pool: {
      // better-sqlite3 is synchronous: one connection serializes writes and avoids SQLITE_BUSY.
      min: 1,
      max: 1,
      afterCreate: (conn: Sqlite.Database, done: (err: Error | null, c: unknown) => void) => {
        try {
          setUpSqlite(conn);
          done(null, conn);
        } catch (err) {
          done(err as Error, conn);
        }
      },
    },
  });
  // An in-memory database, which a second connection could not see, reads through Knex.
  if (file === ':memory:' || file.startsWith('file:')) return handle(db, 'sqlite', { sqliteFile: file }, () => knexReads(db, 'sqlite'), undefined, undefined);
  const reads = sqliteReads(file, prepareSqlite);
  return handle(db, 'sqlite', { sqliteFile: file }, () => reads, undefined, reads);
}
