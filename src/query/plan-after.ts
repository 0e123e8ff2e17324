// Planner pass: After, the keyset cursor (design.md §7). A cursor opens only the query it
// came from (same DTO, filters and order) on a server holding the same secret; anything
// else is refused naming `After`, never answered with another query's rows.
import { ok, type Result } from '../errors/api-error.js';
import type { FieldSpec, QueryDtoSpec } from './catalog-types.js';
import { decodeCursor } from './cursor.js';
import type { EngineContext } from './engine-context.js';
import type { Condition, Keyset, OrderTerm } from './plan-types.js';
import { invalid } from './plan-values.js';
import type { QueryRequest } from './request.js';

const NAME = 'After';

/** The query a cursor belongs to; filters sorted, so their order in the request does not matter. */
export function queryBinding(dto: QueryDtoSpec, conditions: readonly Condition[], order: readonly OrderTerm[]): string {
  const filters = conditions.map((c) => JSON.stringify([c.field.name, c.operator, c.values])).sort();
  return JSON.stringify([dto.operation, filters, order.map((t) => [t.field.name, t.desc])]);
}

/** A cell as the engines return it for the field: NULL only where the column admits it. */
export function fits(value: unknown, field: FieldSpec): value is number | string | null {
  if (value === null) return field.nullable;
  return field.family === 'string' ? typeof value === 'string' : Number.isSafeInteger(value);
}

export function planAfter(request: QueryRequest, skip: number, dto: QueryDtoSpec, conditions: readonly Condition[], order: readonly OrderTerm[], ctx: EngineContext): Result<Keyset | undefined> {
  const raw = request.shaping.after?.value;
  // An empty After is the first page, so a client may send the parameter on every request.
  if (raw === undefined || raw === '') return ok(undefined);
  if (typeof raw !== 'string') return invalid('InvalidType', NAME, `'${NAME}' must be a cursor string`);
  if (skip > 0) return invalid('InvalidValue', NAME, `'${NAME}' pages by cursor and cannot be combined with 'Skip'`);
  const values = decodeCursor(raw, queryBinding(dto, conditions, order), ctx.cursorKey);
  if (values === undefined || values.length !== order.length || !values.every((v, i) => fits(v, order[i]!.field))) {
    return invalid('InvalidValue', NAME, `'${NAME}' is not a cursor of this query: use the 'next' of an answer with the same filters and order`);
  }
  return ok(Object.freeze({ kind: 'keyset', values: Object.freeze(values as (number | string | null)[]) }));
}
