// An export's plan (design.md §7, Exports): the query's own planner on the same filters,
// orderBy, fields and access, with pages of `exportPageRows`, no Skip and nothing to count.
// `After` takes the query's signed cursor, or the last row's sort values as a JSON array
// (the order's fields, `Id` last), which is how a client resumes an export cut short from
// the last row it received: those values only say where in the same filtered order to
// begin, so they need no signature.
import { ok, type FieldError, type Result } from '../errors/api-error.js';
import type { QueryDtoSpec } from './catalog-types.js';
import type { EngineContext } from './engine-context.js';
import { fits } from './plan-after.js';
import type { Keyset, QueryPlan } from './plan-types.js';
import { invalid } from './plan-values.js';
import { compile } from './run-query.js';

/** Rows per page, each page one statement (or one per keyset group) under QUERY_TIMEOUT_MS. */
export const exportPageRows = 1000;

const afterName = 'After';

/** `after` as the sort values of a row: a JSON array, told from a cursor by its first character. */
function valuesOf(after: unknown): unknown[] | undefined | 'malformed' {
  if (typeof after !== 'string' || !after.trimStart().startsWith('[')) return undefined;
  try {
    const values: unknown = JSON.parse(after);
    return Array.isArray(values) ? values : 'malformed';
  } catch {
    return 'malformed';
  }
}

function keysetOf(values: readonly unknown[], plan: QueryPlan): Result<Keyset> {
  const order = plan.order;
  // Records carry booleans as true/false; the keyset keeps them as the engines store them.
  const stored = values.map((v, i) => (typeof v === 'boolean' && order[i]?.field.family === 'boolean' ? Number(v) : v));
  if (stored.length !== order.length || !stored.every((v, i) => fits(v, order[i]!.field))) {
    const names = order.map((t) => t.field.name).join(', ');
    return invalid('InvalidValue', afterName, `'${afterName}' as values must be the last row's ${names}, in that order`);
  }
  return ok(Object.freeze({ kind: 'keyset', values: Object.freeze(stored as (number | string | null)[]) }));
}

export function compileExport(dto: QueryDtoSpec, request: Readonly<Record<string, unknown>>, ctx: EngineContext, reported: readonly FieldError[]): Result<QueryPlan> {
  const afterKey = Object.keys(request).find((k) => k.toLowerCase() === 'after');
  const values = afterKey === undefined ? undefined : valuesOf(request[afterKey]);
  const rest = values === undefined ? request : Object.fromEntries(Object.entries(request).filter(([k]) => k !== afterKey));
  const planned = compile(dto, rest, ctx, reported);
  if (!planned.ok) return planned;
  let after = planned.value.after;
  if (values === 'malformed') return invalid('InvalidValue', afterName, `'${afterName}' must be a cursor or a JSON array of the last row's sort values`);
  if (values !== undefined) {
    const keyset = keysetOf(values, planned.value);
    if (!keyset.ok) return keyset;
    after = keyset.value;
  }
  return ok(
    Object.freeze({
      ...planned.value,
      paging: Object.freeze({ kind: 'paging', skip: 0, take: exportPageRows }),
      after,
      total: false,
      estimatedTotal: false,
      aggregates: Object.freeze([]),
    }),
  );
}
