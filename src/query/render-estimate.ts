// How each engine estimates the rows of a filter for Include=EstimatedTotal (estimate.ts).
import type { Dialect } from '../db/dialect.js';
import { fieldIndexName } from '../db/index-names.js';
import type { OperatorKind } from './catalog-types.js';
import type { QueryPlan } from './plan-types.js';
import type { EngineEstimate, SelectParts } from './select-parts.js';

type EstimateRenderer = (plan: QueryPlan, keys: SelectParts) => EngineEstimate | undefined;

/**
 * sqlite_stat1 (written by ANALYZE and PRAGMA optimize) holds per index the table's rows and
 * the average rows per value of its first column: the whole table when nothing filters, and
 * an equality or In on one field; SQLite keeps no figure for ranges or patterns.
 */
const sqlite: EstimateRenderer = (plan: QueryPlan, keys: SelectParts): EngineEstimate | undefined => {
  const stat = (where: SelectParts['where'], figure: number, times: number): EngineEstimate => ({
    kind: 'stat',
    query: { ...keys, table: 'sqlite_stat1', columns: ['stat'], where, limit: 1 },
    figure,
    times,
  });
  const table = { sql: '?? = ?', bindings: ['tbl', plan.dto.table] };
  if (plan.conditions.length === 0) return stat([table, { sql: '?? IS NOT NULL', bindings: ['idx'] }], 0, 1);
  const [only] = plan.conditions;
  if (plan.conditions.length > 1 || (only!.operator !== 'eq' && only!.operator !== 'in') || only!.field.name === plan.dto.primaryKey) return undefined;
  return stat([table, { sql: '?? = ?', bindings: ['idx', fieldIndexName(plan.dto.table, only!.field.column)] }], 1, only!.values.length);
};

/** Operators MySQL reads as ranges of the field's index, estimating their rows by index dives. */
const rangeOperators: ReadonlySet<OperatorKind> = new Set(['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte', 'between', 'startsWith']);

/**
 * EXPLAIN's `rows` (times `filtered` where the engine gives it): the optimizer's own
 * estimate, from the index dives or statistics it plans with, for any filter.
 */
const mysql: EstimateRenderer = (plan: QueryPlan, keys: SelectParts): EngineEstimate => {
  const [only] = plan.conditions;
  if (only === undefined) return { kind: 'explain', query: keys, dived: {} };
  const dived = plan.conditions.length === 1 && rangeOperators.has(only.operator);
  const index = only.field.name === plan.dto.primaryKey ? 'PRIMARY' : fieldIndexName(plan.dto.table, only.field.column);
  return { kind: 'explain', query: keys, dived: dived ? { index } : undefined };
};

/** `keys`: the query's keys, unpaged. */
export const engineEstimates: Record<Dialect, EstimateRenderer> = { mysql, sqlite };
