// The engine end to end: parse -> plan -> render -> execute. Takes the DTO's catalog
// entry and the engine context as inputs, so a new query DTO needs no engine change.
import type { Knex } from 'knex';
import type { Result } from '../errors/api-error.js';
import type { QueryDtoSpec } from './catalog-types.js';
import type { EngineContext } from './engine-context.js';
import { execute, type QueryResponse } from './execute.js';
import { plan } from './plan.js';
import type { QueryPlan } from './plan-types.js';
import { render } from './render.js';
import { parse } from './request.js';

export interface QueryOutcome {
  readonly plan: QueryPlan;
  readonly response: QueryResponse;
}

/** Parses and plans without touching the database. */
export function compile(dto: QueryDtoSpec, request: unknown, ctx: EngineContext): Result<QueryPlan> {
  const parsed = parse(request);
  return parsed.ok ? plan(parsed.value, dto, ctx) : parsed;
}

export async function runQuery(db: Knex, dto: QueryDtoSpec, request: unknown, ctx: EngineContext): Promise<Result<QueryOutcome>> {
  const planned = compile(dto, request, ctx);
  if (!planned.ok) return planned;
  const executed = await execute(db, render(db, planned.value, ctx), planned.value, ctx);
  return executed.ok ? { ok: true, value: { plan: planned.value, response: executed.value } } : executed;
}
