// Planner pass: Skip and Take (design.md §7). Skip defaults to 0; Take defaults to
// DEFAULT_TAKE and is clamped at MAX_TAKE; negative values are refused, not clamped.
import { collect, ok, type Result } from '../errors/api-error.js';
import type { EngineContext } from './engine-context.js';
import type { Paging } from './plan-types.js';
import { int32, invalid } from './plan-values.js';
import type { QueryRequest } from './request.js';

function count(request: QueryRequest, param: 'skip' | 'take', name: string, fallback: number): Result<number> {
  const raw = request.shaping[param];
  if (raw === undefined) return ok(fallback);
  const n = int32(raw.value, name);
  if (!n.ok) return n;
  return n.value < 0 ? invalid('InvalidValue', name, `'${name}' must be 0 or more`) : n;
}

export function planPaging(request: QueryRequest, ctx: EngineContext): Result<Paging> {
  const both = collect([count(request, 'skip', 'Skip', 0), count(request, 'take', 'Take', ctx.defaultTake)]);
  if (!both.ok) return both;
  const [skip, take] = both.value as [number, number];
  return ok(Object.freeze({ kind: 'paging', skip, take: Math.min(take, ctx.maxTake) }));
}
