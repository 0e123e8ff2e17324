// A compact view of a QueryPlan or a failure, so table-driven tests can state what they
// want in a line: conditions as [field, operator, values], order as 'Field desc', etc.
import type { Result } from '../../src/errors/api-error.js';
import type { QueryPlan } from '../../src/query/plan-types.js';

export interface PlanSummary {
  conditions?: Array<[string, string, unknown[]]>;
  paging?: [number, number];
  order?: string[];
  fields?: string[];
  total?: boolean;
  aggregates?: Array<[string, string | undefined, string]>;
}

export type Outcome = { plan: PlanSummary } | { errors: Array<[string, string]> };

export function summarize(r: Result<QueryPlan>, keys: readonly (keyof PlanSummary)[]): Outcome {
  if (!r.ok) return { errors: r.error.errors.map((e) => [e.errorCode, e.fieldName]) };
  const p = r.value;
  const full: Required<PlanSummary> = {
    conditions: p.conditions.map((c) => [c.field.name, c.operator, [...c.values]]),
    paging: [p.paging.skip, p.paging.take],
    order: p.order.map((o) => `${o.field.name}${o.desc ? ' desc' : ''}`),
    fields: p.projection.map((f) => f.name),
    total: p.total,
    aggregates: p.aggregates.map((a) => [a.fn, a.field?.name, a.key]),
  };
  return { plan: Object.fromEntries(keys.map((k) => [k, full[k]])) as PlanSummary };
}
