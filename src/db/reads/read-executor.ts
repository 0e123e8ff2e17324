// What the read path runs its SELECTs on (db/reads/select.ts): one executor per database, built
// on a driver's public API (mysql-reads.ts, sqlite-reads.ts) or on Knex's own query API
// (knex-reads.ts), chosen in design.md §8.
import type { Table } from './table.js';

/** Runs one SELECT of a request's statements (selectTogether). */
export type SelectOn = (sql: string, bindings: readonly unknown[]) => Promise<Table>;

/** The read pool's figures for /metrics, as the executor itself counts them. */
export interface PoolFigures {
  readonly used: number;
  readonly free: number;
  readonly max: number;
  /** Requests waiting for a connection. */
  readonly waiting: number;
}

/**
 * One consistent view for a long read (an export, design.md §7): its statements, sent one
 * at a time, all read the same committed state on one connection until `close`.
 */
export interface Snapshot {
  readonly select: SelectOn;
  /** Ends the read transaction and gives the connection back; later calls do nothing. */
  close(): Promise<void>;
}

export interface ReadExecutor {
  /** One SELECT: its rows as objects keyed by column, or as a Table (`asTable`). */
  select(sql: string, bindings: readonly unknown[], timeoutMs: number | undefined, asTable: boolean): Promise<unknown>;
  /** The statements `work` asks for, on one connection (design.md §8). */
  together<T>(timeoutMs: number | undefined, work: (select: SelectOn) => Promise<T>): Promise<T>;
  /** Opens a Snapshot; QUERY_TIMEOUT_MS (`timeoutMs`) bounds each of its statements. */
  snapshot(timeoutMs: number | undefined): Promise<Snapshot>;
  /** undefined where the executor has no pool of its own. */
  figures(): PoolFigures | undefined;
  close(): Promise<void>;
}

/** Calls `work(select)` and hands its promise on; a synchronous throw becomes a rejection. */
export function attempt<T>(work: (select: SelectOn) => Promise<T>, select: SelectOn): Promise<T> {
  try {
    return work(select);
  } catch (err) {
    return Promise.reject(err);
  }
}
