// The SELECTs of a query as data: what render.ts produces from a plan, what statements.ts
// turns into SQL text (and caches per shape), and what execute.ts runs. Types only, so the
// stages meet here instead of importing one another.
import type { Aggregate } from './plan-types.js';
import type { Fragment } from './render-conditions.js';
import type { SqlDialect } from './sql-dialect.js';

/**
 * One SELECT as data, before Knex sees it: what statements.ts hands to the query builder and
 * what the statement cache (statements.ts) keys on. Fragments bind identifiers with `??`
 * and values with `?`.
 */
export interface SelectParts {
  /**
   * `plain`: one SELECT. `deferred`: the page's keys read through the order's index first,
   * then joined to their rows, so a deep OFFSET walks index entries instead of rows (MySQL).
   * `countUpTo`: COUNT(*) of at most `limit` matching rows.
   */
  readonly form: 'plain' | 'deferred' | 'countUpTo';
  readonly table: string;
  /** Plain columns, bound as identifiers. */
  readonly columns: readonly string[];
  /** Computed columns: `COUNT(*) AS ??`, `SUM(??) AS ??`... */
  readonly expressions: readonly Fragment[];
  /** ANDed together. */
  readonly where: readonly Fragment[];
  /** A column that must not be NULL (picks of stored values). */
  readonly notNull: string | undefined;
  readonly order: Fragment | undefined;
  readonly limit: number | undefined;
  /** 0 for none. */
  readonly offset: number;
  /** `deferred`: the key column the keys are joined on. */
  readonly key: string | undefined;
  /** `deferred`: the order again, over the joined rows' columns. */
  readonly outerOrder: Fragment | undefined;
}

export type AggregateSource =
  | { readonly kind: 'summary'; readonly aliases: readonly string[] }
  | { readonly kind: 'pick'; readonly query: SelectParts; readonly column: string };

/**
 * How `EstimatedTotal` asks the engine for its figure: `explain` reads the optimizer's row
 * estimate of the query (MySQL); `stat` reads one figure of the ANALYZE statistics row the
 * query selects (SQLite's sqlite_stat1: figure 0 is the table's rows, figure 1 the rows per
 * value of the index's column), times `times`.
 *
 * `dived`, on `explain`: the filter is at most one range of one index, whose row estimate
 * the optimizer takes from the index itself (table statistics when nothing filters; index
 * dives otherwise). Such a figure may settle the answer without the count (estimate.ts)
 * when the plan reads `index` (any index when undefined).
 */
export type EngineEstimate =
  | { readonly kind: 'explain'; readonly query: SelectParts; readonly dived: { readonly index?: string } | undefined }
  | { readonly kind: 'stat'; readonly query: SelectParts; readonly figure: number; readonly times: number };

/**
 * A random sample of the table's rows by key (estimate.ts), for a filter no index range
 * serves: the smallest and the largest key (`lowest`, `highest`: one row each, column
 * `key`), and the count (`n`) of the filter's rows among the keys given.
 */
export interface SampleParts {
  readonly key: string;
  readonly lowest: SelectParts;
  readonly highest: SelectParts;
  readonly matching: (keys: readonly number[]) => SelectParts;
}

/** `EstimatedTotal`: the count capped one row past the exact limit, the engine's estimate and the sample. */
export interface EstimateParts {
  readonly capped: SelectParts;
  readonly engine: EngineEstimate | undefined;
  /** Undefined where the key is not an integer. */
  readonly sample: SampleParts | undefined;
}

export interface RenderedQuery {
  readonly dialect: SqlDialect;
  /**
   * The page's statements, in the order their rows come: each runs only while the rows so
   * far leave the page short (render-keyset.ts). Empty when Take is 0. Their LIMIT is one
   * row more than Take, which tells whether a further page exists.
   */
  readonly page: readonly SelectParts[];
  /** The columns the page reads for the `next` cursor: the order's, in order. */
  readonly cursorColumns: readonly string[];
  readonly estimate: EstimateParts | undefined;
  /** COUNT(*) AS total and the aggregates computed in one pass; absent when neither is asked. */
  readonly summary: SelectParts | undefined;
  readonly aggregates: readonly { readonly aggregate: Aggregate; readonly source: AggregateSource }[];
  /** The filter's count where the substring index alone knows it (substring-routes.ts): Total and EstimatedTotal need no statement. */
  readonly knownTotal: number | undefined;
  /** Where the versions of `tables` are read, as columns beside the rows (db/table-versions/table-versions.ts); undefined when nowhere. */
  readonly versions: { readonly tables: readonly string[]; readonly in: 'page' | 'summary' } | undefined;
}
