// The read path's own MySQL pool (design.md §8), made with mysql2's createPool: connections
// lent one request at a time, each set up for the service's sessions before its first
// statement, given up after `acquireTimeoutMs` in the queue (mysql2's pool queues without a
// limit of time), and counted here for /metrics.
import type net from 'node:net';
import { createPool, type Pool, type PoolConnection, type PoolOptions } from 'mysql2';
import type { PoolFigures } from './read-executor.js';
import { cancel, watch } from './statement-deadline.js';

/** Runs a new connection's session statements; calls back with the first failure. */
export type SessionSetup = (conn: PoolConnection, done: (err: Error | null) => void) => void;

export interface MysqlReadPool {
  acquire(cb: (err: Error | null, conn?: PoolConnection) => void): void;
  release(conn: PoolConnection): void;
  /** Closes a connection for good, its socket destroyed rather than half-closed (a hung server never answers a FIN). */
  discard(conn: PoolConnection): void;
  figures(): PoolFigures;
  close(): Promise<void>;
}

export interface MysqlReadPoolOptions {
  /** Its `stream` opens each connection's socket (db/nodes/node-set.ts). */
  readonly connection: PoolOptions & { readonly stream: () => net.Socket };
  readonly max: number;
  readonly acquireTimeoutMs: number;
  readonly setup: SessionSetup;
}

/** The error of a request that waited `acquireTimeoutMs` for a connection; answered 503 (driver-errors.ts). */
function acquireTimeout(ms: number): Error {
  return Object.assign(new Error(`No database connection within ${ms} ms`), { code: 'POOL_ACQUIRE_TIMEOUT' });
}

/** The pool's open connections, counted from its public events: a new connection, one that ended or failed. */
function openConnections(pool: Pool): () => number {
  let open = 0;
  pool.on('connection', (conn) => {
    open++;
    let counted = true;
    const closed = () => {
      if (counted) open--;
      counted = false;
    };
    conn.once('end', closed);
    conn.once('error', closed);
  });
  return () => open;
}

export function createMysqlReadPool(options: MysqlReadPoolOptions): MysqlReadPool {
  const pool = createPool({ ...options.connection, connectionLimit: options.max });
  const discard = (conn: PoolConnection) => conn.destroy();
  const open = openConnections(pool);
  const ready = new WeakSet<PoolConnection>();
  let used = 0;
  let waiting = 0;
  return {
    acquire(cb) {
      waiting++;
      let pending = true;
      const settle = (err: Error | null, conn?: PoolConnection) => {
        pending = false;
        waiting--;
        cancel(deadline);
        if (err !== null) return cb(err);
        used++;
        cb(null, conn);
      };
      const deadline = watch(options.acquireTimeoutMs, () => settle(acquireTimeout(options.acquireTimeoutMs)));
      pool.getConnection((err, conn) => {
        if (!pending) return void conn?.release();
        if (err) return settle(err);
        if (ready.has(conn)) return settle(null, conn);
        options.setup(conn, (setupErr) => {
          if (setupErr !== null) discard(conn);
          else ready.add(conn);
          if (!pending) return void (setupErr === null && conn.release());
          settle(setupErr, conn);
        });
      });
    },
    release(conn) {
      used--;
      conn.release();
    },
    discard(conn) {
      used--;
      discard(conn);
    },
    figures: () => ({ used, free: Math.max(0, open() - used), max: options.max, waiting }),
    close: () => new Promise<void>((resolve, reject) => pool.end((err) => (err ? reject(err) : resolve()))),
  };
}
