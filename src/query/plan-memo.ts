// A client sends the same OrderBy, Fields and Include with every page, and a planner
// pass's answer depends only on that text, the DTO and the engine context: so a pass's plan
// of a text is remembered (src/text-memo.ts), per DTO and context, 256 texts each. Only
// plans are kept; a refusal is built afresh for each request that makes it.
import type { Result } from '../errors/api-error.js';
import { memoByText } from '../text-memo.js';
import type { QueryDtoSpec } from './catalog-types.js';
import type { EngineContext } from './engine-context.js';

type Pass<T> = (text: string, dto: QueryDtoSpec, ctx: EngineContext) => Result<T>;

export function memoPass<T>(pass: Pass<T>): Pass<T> {
  const byContext = new WeakMap<EngineContext, WeakMap<QueryDtoSpec, (text: string) => Result<T>>>();
  return (text, dto, ctx) => {
    let byDto = byContext.get(ctx);
    if (byDto === undefined) byContext.set(ctx, (byDto = new WeakMap()));
    let memo = byDto.get(dto);
    if (memo === undefined) byDto.set(dto, (memo = memoByText(256, (t: string) => pass(t, dto, ctx), (r) => r.ok)));
    return memo(text);
  };
}
