// The read path's one way to run a SELECT whose text Knex built (query/statements.ts,
// the files repository): on the executor its database's handle carries (database.ts,
// read-executor.ts), which connect.ts chooses: a read pool of the service's own on MySQL,
// read-only connections on a SQLite file, Knex's own query API otherwise. Knex stays the builder, the migrations and
// the writes; design.md §8 says why reads run beside its runner.
import type { Database, ReadPath, ReadStatement } from '../database.js';
import type { PoolFigures, ReadExecutor, SelectOn, Snapshot } from './read-executor.js';
import type { Table } from './table.js';

export { cellOf, firstCell, keyOf, tableOfNamed, type Cells, type Table } from './table.js';
export type { SelectOn, Snapshot } from './read-executor.js';
export type { ReadStatement } from '../database.js';

type Row = Record<string, unknown>;

function executorOf(reads: ReadPath): ReadExecutor {
  return (reads.executor ??= reads.open());
}

/** Closes `database`'s read connections; a later read opens them again. */
export async function closeReads(database: Database): Promise<void> {
  const { reads } = database;
  const executor = reads.executor;
  if (executor === undefined) return;
  reads.executor = undefined;
  await executor.close();
}

/** The read connections' figures; undefined where reads have no connections of their own (knex-reads.ts). */
export function readPoolFigures(database: Database): PoolFigures | undefined {
  return executorOf(database.reads).figures();
}

/** Calls `watcher` with every statement read on `database` from now on; returns what stops it. */
export function watchReads(database: Database, watcher: (statement: ReadStatement) => void): () => void {
  const { watchers } = database.reads;
  watchers.add(watcher);
  return () => void watchers.delete(watcher);
}

function announce(reads: ReadPath, sql: string, bindings: readonly unknown[]): void {
  if (reads.watchers.size > 0) for (const watch of reads.watchers) watch({ sql, bindings });
}

/** The rows of one SELECT as objects keyed by column. Driver errors reject as the driver raised them. */
export function selectRows<R = Row>(database: Database, sql: string, bindings: readonly unknown[], timeoutMs?: number): Promise<R[]> {
  const { reads } = database;
  announce(reads, sql, bindings);
  return executorOf(reads).select(sql, bindings, timeoutMs, false) as Promise<R[]>;
}

/** The same as a Table (table.ts). */
export function selectTable(database: Database, sql: string, bindings: readonly unknown[], timeoutMs?: number): Promise<Table> {
  const { reads } = database;
  announce(reads, sql, bindings);
  return executorOf(reads).select(sql, bindings, timeoutMs, true) as Promise<Table>;
}

/**
 * The statements `work` asks for, on one connection (design.md §8): on MySQL one pooled
 * connection, each statement sent once the one before it has settled; on a SQLite file one
 * read transaction, so all of them read the same committed state.
 */
export function selectTogether<T>(database: Database, timeoutMs: number | undefined, work: (select: SelectOn) => Promise<T>): Promise<T> {
  const { reads } = database;
  return executorOf(reads).together(timeoutMs, (select) =>
    work((sql, bindings) => {
      announce(reads, sql, bindings);
      return select(sql, bindings);
    }),
  );
}

/**
 * One consistent view of `database` held until its `close` (design.md §7, Exports): on MySQL a
 * pooled connection in a consistent-snapshot transaction, on a SQLite file a read
 * transaction on a connection of its own. `timeoutMs` bounds each statement, not the view.
 */
export async function openSnapshot(database: Database, timeoutMs: number | undefined): Promise<Snapshot> {
  const { reads } = database;
  const snapshot = await executorOf(reads).snapshot(timeoutMs);
  return {
    select: (sql, bindings) => {
      announce(reads, sql, bindings);
      return snapshot.select(sql, bindings);
    },
    close: () => snapshot.close(),
  };
}
