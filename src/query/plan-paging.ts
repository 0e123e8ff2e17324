// Planner pass: Skip and Take (design.md §7). Skip defaults to 0; Take defaults to
// DEFAULT_TAKE and is clamped at MAX_TAKE. The contract refuses negative values (and a Take
// above its declared maximum) before the engine runs.
import { collect, ok, type Result } from '../errors/api-error.js';
import type { EngineContext } from './engine-context.js';
import type { Paging } from './plan-types.js';
import { int32 } from './plan-values.js';
import type { QueryRequest } from './request.js';

function count(request: QueryRequest, param: 'skip' | 'take', name: string, fallback: number): Result<number> {
  const raw = request.shaping[param];
  if (raw === undefined) return ok(fallback);
  return int32(raw.value, name);
}

export function planPaging(request: QueryRequest, ctx: EngineContext): Result<Paging> {
  const both = collect([count(request, 'skip', 'Skip', 0), count(request, 'take', 'Take', ctx.defaultTake)]);
  if (!both.ok) return both;
  const [skip, take] = both.value as [number, number];
  return ok(Object.freeze({ kind: 'paging', skip, take: Math.min(take, ctx.maxTake) }));
}
