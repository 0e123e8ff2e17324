// The handle of one database: everything a request needs of it, in the one object connect()
// returns (design.md §8), so nothing about a connection is looked up beside it.
import type { Knex } from 'knex';
import type { ConnectionOptions } from 'mysql2';
import type { Dialect } from './dialect.js';
import type { NodeSet } from './nodes/node-set.js';
import type { ReadExecutor } from './reads/read-executor.js';
import type { SqliteReads } from './reads/sqlite-reads.js';

/** A statement as the read path sends it, for whoever watches (tests count statements with it). */
export interface ReadStatement {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

/** The read path of a database (db/reads/select.ts). */
export interface ReadPath {
  /** Opens the executor: a read pool of the service's own, read-only SQLite connections, or Knex's query API. */
  readonly open: () => ReadExecutor;
  /** Open from the first read until disconnect. */
  executor: ReadExecutor | undefined;
  /** Called with every statement read (watchReads). */
  readonly watchers: Set<(statement: ReadStatement) => void>;
}

/** Where connect() pointed: what bulkConnection opens a connection of its own to. */
export type Target = { readonly mysql: ConnectionOptions } | { readonly sqliteFile: string };

/** Something a module builds once per database on first use (its prepared statements): declared with `perDatabase`. */
export interface PerDatabase<T> {
  readonly build: (database: Database) => T;
}

export interface Database {
  /** The SQL builder, the migrations and the writes; reads run on `reads` with text Knex built. */
  readonly knex: Knex;
  /** Which engine, known from what connect() was given. */
  readonly dialect: Dialect;
  readonly reads: ReadPath;
  /** The nodes of a MySQL server or cluster (node-set.ts); undefined on SQLite. */
  readonly nodes: NodeSet | undefined;
  /** The read-only connections to a SQLite file (sqlite-reads.ts); undefined elsewhere. */
  readonly sqliteReads: SqliteReads | undefined;
  readonly target: Target;
  /** What modules built for this database (`partOf`), kept as long as the handle. */
  readonly parts: Map<PerDatabase<unknown>, unknown>;
}

/** Declares something built once per database, on first use (`partOf`). */
export const perDatabase = <T>(build: (database: Database) => T): PerDatabase<T> => Object.freeze({ build });

/** `part` of `database`, built on first use. */
export function partOf<T>(database: Database, part: PerDatabase<T>): T {
  let value = database.parts.get(part) as T | undefined;
  if (value === undefined) database.parts.set(part, (value = part.build(database)));
  return value;
}
