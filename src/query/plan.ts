// Stage 2 of the engine: the request value -> a QueryPlan, through small pure passes
// that each return a Result. Their field errors are gathered with the contract's, so a
// request with a filter over its length, a negative Take and an unknown OrderBy field hears
// about all three at once.
import { ApiError, fail, ok, type FieldError, type Result } from '../errors/api-error.js';
import { mergeFieldErrors, rankIn } from '../errors/field-errors.js';
import type { QueryDtoSpec } from './catalog-types.js';
import type { EngineContext } from './engine-context.js';
import { planAfter } from './plan-after.js';
import { filterIndex, planFilters, type FilterIndex } from './plan-filters.js';
import { planInclude } from './plan-include.js';
import { planOrder, planProjection } from './plan-order.js';
import { planPaging } from './plan-paging.js';
import type { QueryPlan } from './plan-types.js';
import type { QueryRequest } from './request.js';

const indexes = new WeakMap<QueryDtoSpec, FilterIndex>();

function indexOf(dto: QueryDtoSpec, ctx: EngineContext): FilterIndex {
  let index = indexes.get(dto);
  if (!index) indexes.set(dto, (index = filterIndex(dto, ctx.operators)));
  return index;
}

/** Paging and shaping parameters rank after the filters, in the order of the passes that read them. */
const shapingOrder = ['Skip', 'Take', 'OrderBy', 'OrderByDesc', 'Fields', 'Include', 'Meta', 'After'];

/**
 * Field errors in the order the answer lists them: filters as the request sent them, then
 * the paging and shaping parameters.
 */
function rankOf(request: QueryRequest): (fieldName: string) => number {
  const filters = new Map(request.filters.map((p, i) => [p.name.toLowerCase(), i]));
  const shaping = rankIn(shapingOrder);
  return (fieldName) => filters.get(fieldName.toLowerCase()) ?? request.filters.length + shaping(fieldName);
}

/** Every field error, the contract's and the failed passes'; a failure without field errors wins outright. */
function gathered(reported: readonly FieldError[], results: readonly Result<unknown>[], request: QueryRequest): ApiError {
  const errors: FieldError[] = [];
  for (const r of results) {
    if (r.ok) continue;
    if (r.error.errors.length === 0) return r.error;
    errors.push(...r.error.errors);
  }
  return ApiError.validation(mergeFieldErrors([reported, errors], rankOf(request)));
}

/**
 * `reported`: the contract's field errors of the request (its bounds, checked at the edge),
 * answered together with the planner's own, all at once.
 */
export function plan(request: QueryRequest, dto: QueryDtoSpec, ctx: EngineContext, reported: readonly FieldError[] = []): Result<QueryPlan> {
  const conditions = planFilters(request.filters, indexOf(dto, ctx));
  const paging = planPaging(request, ctx);
  const order = planOrder(request, dto, ctx);
  const projection = planProjection(request, dto, ctx);
  const include = planInclude(request, dto, ctx);
  if (reported.length > 0 || !(conditions.ok && paging.ok && order.ok && projection.ok && include.ok)) {
    return fail(gathered(reported, [conditions, paging, order, projection, include], request));
  }
  // A cursor is checked against the filters and order it must belong to, so only once they planned.
  const after = planAfter(request, paging.value.skip, dto, conditions.value, order.value, ctx);
  if (!after.ok) return after;
  return ok(
    Object.freeze({
      kind: 'plan',
      dto,
      conditions: Object.freeze(conditions.value),
      paging: paging.value,
      order: order.value,
      after: after.value,
      projection: projection.value,
      total: include.value.total,
      estimatedTotal: include.value.estimatedTotal,
      aggregates: include.value.aggregates,
    }),
  );
}
