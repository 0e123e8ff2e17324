// SQL for each Include aggregate, keyed by function: either expressions added to the one
// summary query (COUNT(*) AS total, SUM(..), ...) or a "pick": one stored value taken
// from the filtered rows in a given order (FIRST, LAST, and MIN/MAX of strings).
import type { FieldSpec } from './catalog-types.js';
import type { Aggregate, AggregateFn, OrderTerm } from './plan-types.js';
import type { Fragment } from './render-conditions.js';
import type { SqlDialect } from './sql-dialect.js';

export type AggregateSql =
  | { readonly kind: 'columns'; readonly columns: readonly Fragment[] }
  | { readonly kind: 'pick'; readonly field: FieldSpec; readonly order: readonly OrderTerm[]; readonly nonNull: boolean };

/** What an aggregate renders against: the query's full order, its key field, the dialect. */
export interface AggregateScope {
  readonly order: readonly OrderTerm[];
  readonly key: FieldSpec;
  readonly dialect: SqlDialect;
}

type AggregateRenderer = (a: Aggregate, scope: AggregateScope) => AggregateSql;

const columns = (...fragments: Fragment[]): AggregateSql => ({ kind: 'columns', columns: fragments });
const over = (fn: string, a: Aggregate): Fragment => ({ sql: `${fn}(??)`, bindings: [a.field!.column] });
const reversed = (order: readonly OrderTerm[]) => order.map((t) => ({ ...t, desc: !t.desc }));

/**
 * MIN/MAX of a string must be a stored value, the same on both engines: SQL MIN() would
 * give MySQL's pick among collation-equal values ('Città' vs 'citta') or SQLite's folded
 * text. So it is the first non-null row by the compared value, ties broken by the key.
 */
const extreme = (fn: 'MIN' | 'MAX', desc: boolean): AggregateRenderer => (a, { key }) =>
  a.field!.family === 'string'
    ? {
        kind: 'pick',
        field: a.field!,
        order: [{ kind: 'order', field: a.field!, desc }, { kind: 'order', field: key, desc: false }],
        nonNull: true,
      }
    : columns(over(fn, a));

export const aggregateRenderers: Record<AggregateFn, AggregateRenderer> = {
  count: (a) => columns(a.field ? over('COUNT', a) : { sql: 'COUNT(*)', bindings: [] }),
  // Distinct by the compared value: the collation on MySQL, fold() on SQLite.
  countDistinct: (a, { dialect }) => columns({ sql: `COUNT(DISTINCT ${dialect.compared(a.field!)})`, bindings: [a.field!.column] }),
  min: extreme('MIN', false),
  max: extreme('MAX', true),
  first: (a, { order }) => ({ kind: 'pick', field: a.field!, order, nonNull: false }),
  // The last row of a total order is the first row of the exactly reversed order.
  last: (a, { order }) => ({ kind: 'pick', field: a.field!, order: reversed(order), nonNull: false }),
  sum: (a) => columns(over('SUM', a)),
  // AVG is computed in JS from SUM and COUNT with BigInt: the engines' own AVG differ
  // (DECIMAL with 4 extra digits on MySQL, a double on SQLite).
  avg: (a) => columns(over('SUM', a), over('COUNT', a)),
};
