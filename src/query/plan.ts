// Stage 2 of the engine: the request value -> a QueryPlan, through small pure passes
// that each return a Result. Their field errors are gathered, so a request with a bad
// filter, a bad Take and an unknown OrderBy field hears about all three at once.
import { ApiError, fail, ok, type FieldError, type Result } from '../errors/api-error.js';
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

/** The contract's bounds of the ignored Meta (scripts/lib/query-schemas.mjs). */
const metaLimits = { entries: 20, value: 1024 } as const;

/** Meta is accepted and ignored (design.md §7), but it must be a bounded object of strings. */
function checkMeta(request: QueryRequest): Result<null> {
  const meta = request.shaping.meta?.value;
  if (meta === undefined) return ok(null);
  const entries = typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? Object.values(meta) : undefined;
  if (!entries || entries.some((v) => typeof v !== 'string')) return fail(ApiError.field('InvalidType', 'Meta', "'Meta' must be an object of strings"));
  if (entries.length > metaLimits.entries) return fail(ApiError.field('TooMany', 'Meta', `'Meta' must have at most ${metaLimits.entries} entries`));
  if (entries.some((v) => [...(v as string)].length > metaLimits.value)) return fail(ApiError.field('Length', 'Meta', `'Meta' values must be at most ${metaLimits.value} characters`));
  return ok(null);
}

/** Every field error of the failed passes; a failure without field errors wins outright. */
function gathered(results: readonly Result<unknown>[]): ApiError {
  const errors: FieldError[] = [];
  for (const r of results) {
    if (r.ok) continue;
    if (r.error.errors.length === 0) return r.error;
    errors.push(...r.error.errors);
  }
  return ApiError.validation(errors);
}

export function plan(request: QueryRequest, dto: QueryDtoSpec, ctx: EngineContext): Result<QueryPlan> {
  const conditions = planFilters(request.filters, indexOf(dto, ctx), ctx);
  const paging = planPaging(request, ctx);
  const order = planOrder(request, dto, ctx);
  const projection = planProjection(request, dto, ctx);
  const include = planInclude(request, dto, ctx);
  const meta = checkMeta(request);
  if (!(conditions.ok && paging.ok && order.ok && projection.ok && include.ok && meta.ok)) {
    return fail(gathered([conditions, paging, order, projection, include, meta]));
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
