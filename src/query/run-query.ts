// The engine end to end: parse -> plan -> route (substring-routes.ts) -> render -> execute. Takes the DTO's catalog
// entry and the engine context as inputs, so a new query DTO needs no engine change.
import type { Knex } from 'knex';
import type { FieldError, Result } from '../errors/api-error.js';
import type { QueryDtoSpec } from './catalog-types.js';
import type { EngineContext } from './engine-context.js';
import { execute } from './execute.js';
import { plan } from './plan.js';
import type { QueryPlan } from './plan-types.js';
import { render } from './render.js';
import { parse } from './request.js';
import type { QueryRecord, QueryResponse, RecordOf } from './records.js';

export interface QueryOutcome<R = QueryRecord> {
  readonly plan: QueryPlan;
  readonly response: QueryResponse<R>;
}

/**
 * Parses and plans without touching the database. `reported`: the contract's field errors of
 * the request, answered with the planner's own.
 */
export function compile(dto: QueryDtoSpec, request: unknown, ctx: EngineContext, reported: readonly FieldError[] = []): Result<QueryPlan> {
  const parsed = parse(request);
  return parsed.ok ? plan(parsed.value, dto, ctx, reported) : parsed;
}

/** Runs a request of `dto`: its records hold `dto`'s fields, each of its family's type. */
export async function runQuery<D extends QueryDtoSpec>(db: Knex, dto: D, request: unknown, ctx: EngineContext, reported: readonly FieldError[] = []): Promise<Result<QueryOutcome<RecordOf<D>>>> {
  const planned = compile(dto, request, ctx, reported);
  if (!planned.ok) return planned;
  const executed = await runPlan(db, dto, planned.value, ctx);
  return executed.ok ? { ok: true, value: { plan: planned.value, response: executed.value } } : executed;
}

/** Runs a plan `compile` made of a request of `dto`; `dto` gives the records their type. */
export async function runPlan<D extends QueryDtoSpec>(db: Knex, _dto: D, plan: QueryPlan, ctx: EngineContext): Promise<Result<QueryResponse<RecordOf<D>>>> {
  // The plan projects only `dto`'s fields and format-values converts each by its family,
  // which is what RecordOf<D> says of them.
  return (await execute(db, (routes) => render(db, plan, ctx, routes), plan, ctx)) as Result<QueryResponse<RecordOf<D>>>;
}
