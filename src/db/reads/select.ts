// The read path's one way to run a SELECT whose text Knex built (query/statements.ts,
// the files repository): on the executor of its database (read-executor.ts), which
// connect.ts provides: a read pool of the service's own on MySQL, read-only connections on
// a SQLite file, Knex's own query API otherwise. Knex stays the builder, the migrations and
// the writes; design.md §8 says why reads run beside its runner.
import type { Knex } from 'knex';
import { knexReads } from './knex-reads.js';
import type { PoolFigures, ReadExecutor, SelectOn, Snapshot } from './read-executor.js';
import type { Table } from './table.js';

export { cellOf, firstCell, keyOf, tableOfNamed, type Cells, type Table } from './table.js';
export type { SelectOn, Snapshot } from './read-executor.js';

type Row = Record<string, unknown>;

/** A statement as the read path sends it, for whoever watches (tests count statements with it). */
export interface ReadStatement {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}
type Watcher = (statement: ReadStatement) => void;

interface Entry {
  readonly open: () => ReadExecutor;
  executor: ReadExecutor | undefined;
  readonly watchers: Set<Watcher>;
}
const entries = new WeakMap<Knex, Entry>();

/** Gives `db` its read executor, opened on first use (connect.ts). */
export function provideReads(db: Knex, open: () => ReadExecutor): void {
  entries.set(db, { open, executor: undefined, watchers: new Set() });
}

function entryOf(db: Knex): Entry {
  let entry = entries.get(db);
  if (entry === undefined) entries.set(db, (entry = { open: () => knexReads(db), executor: undefined, watchers: new Set() }));
  return entry;
}

function executorOf(entry: Entry): ReadExecutor {
  return (entry.executor ??= entry.open());
}

/** Closes `db`'s read connections; a later read opens them again. */
export async function closeReads(db: Knex): Promise<void> {
  const entry = entries.get(db);
  const executor = entry?.executor;
  if (entry === undefined || executor === undefined) return;
  entry.executor = undefined;
  await executor.close();
}

/** The read connections' figures; undefined where reads have no connections of their own (knex-reads.ts). */
export function readPoolFigures(db: Knex): PoolFigures | undefined {
  return executorOf(entryOf(db)).figures();
}

/** Calls `watcher` with every statement read on `db` from now on; returns what stops it. */
export function watchReads(db: Knex, watcher: Watcher): () => void {
  const { watchers } = entryOf(db);
  watchers.add(watcher);
  return () => void watchers.delete(watcher);
}

function announce(entry: Entry, sql: string, bindings: readonly unknown[]): void {
  if (entry.watchers.size > 0) for (const watch of entry.watchers) watch({ sql, bindings });
}

/** The rows of one SELECT as objects keyed by column. Driver errors reject as the driver raised them. */
export function selectRows<R = Row>(db: Knex, sql: string, bindings: readonly unknown[], timeoutMs?: number): Promise<R[]> {
  const entry = entryOf(db);
  announce(entry, sql, bindings);
  return executorOf(entry).select(sql, bindings, timeoutMs, false) as Promise<R[]>;
}

/** The same as a Table (table.ts). */
export function selectTable(db: Knex, sql: string, bindings: readonly unknown[], timeoutMs?: number): Promise<Table> {
  const entry = entryOf(db);
  announce(entry, sql, bindings);
  return executorOf(entry).select(sql, bindings, timeoutMs, true) as Promise<Table>;
}

/**
 * The statements `work` asks for, on one connection (design.md §8): on MySQL one pooled
 * connection, each statement sent once the one before it has settled; on a SQLite file one
 * read transaction, so all of them read the same committed state.
 */
export function selectTogether<T>(db: Knex, timeoutMs: number | undefined, work: (select: SelectOn) => Promise<T>): Promise<T> {
  const entry = entryOf(db);
  return executorOf(entry).together(timeoutMs, (select) =>
    work((sql, bindings) => {
      announce(entry, sql, bindings);
      return select(sql, bindings);
    }),
  );
}

/**
 * One consistent view of `db` held until its `close` (design.md §7, Exports): on MySQL a
 * pooled connection in a consistent-snapshot transaction, on a SQLite file a read
 * transaction on a connection of its own. `timeoutMs` bounds each statement, not the view.
 */
export async function openSnapshot(db: Knex, timeoutMs: number | undefined): Promise<Snapshot> {
  const entry = entryOf(db);
  const snapshot = await executorOf(entry).snapshot(timeoutMs);
  return {
    select: (sql, bindings) => {
      announce(entry, sql, bindings);
      return snapshot.select(sql, bindings);
    },
    close: () => snapshot.close(),
  };
}
