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
}

export type AggregateSource =
  | { readonly kind: 'summary'; readonly aliases: readonly string[] }
  | { readonly kind: 'pick'; readonly query: SelectParts; readonly column: string };

export interface RenderedQuery {
  readonly dialect: SqlDialect;
  /** Absent when Take is 0: no rows are asked for. */
  readonly page: SelectParts | undefined;
  /** COUNT(*) AS total and the aggregates computed in one pass; absent when neither is asked. */
  readonly summary: SelectParts | undefined;
  readonly aggregates: readonly { readonly aggregate: Aggregate; readonly source: AggregateSource }[];
}
