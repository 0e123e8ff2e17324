// The planned query as one canonical text: what an answer's entity tag says of the request
// (design.md §7, "Entity tags"). Two requests whose answers hold the same rows and fields
// have one key however the client wrote them: names in any letter case, parameters in any
// order, an `In` list in any order or with repeats, Take above MAX_TAKE, a GET or a POST.
import type { Condition, QueryPlan } from './plan-types.js';

/** A total order of a field's values: numbers by value, anything else by its text. */
function byValue(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** An `In` list is a set: its order and repeats change no row of the answer. */
function conditionKey(c: Condition): string {
  const values = c.operator === 'in' ? [...new Set(c.values)].sort(byValue) : c.values;
  return JSON.stringify([c.field.name, c.operator, values]);
}

/** Filters sorted (they AND together), everything else in its own order, since that order shows in the answer. */
export function planKey(plan: QueryPlan): string {
  return JSON.stringify([
    plan.dto.operation,
    plan.conditions.map(conditionKey).sort(),
    plan.order.map((t) => [t.field.name, t.desc]),
    [plan.paging.skip, plan.paging.take],
    plan.after?.values ?? null,
    plan.projection.map((f) => f.name),
    plan.total,
    plan.estimatedTotal,
    plan.aggregates.map((a) => [a.fn, a.field?.name ?? null, a.key]),
  ]);
}
