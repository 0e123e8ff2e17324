// The engine end to end, in the order data flows: parse -> plan -> route -> render ->
// execute, each called once from here (README.md beside this file). Takes the DTO's catalog
// entry and the engine context as inputs, so a new query DTO needs no engine change.
import type { Database } from '../db/database.js';
import { translateDbError } from '../db/driver-errors.js';
import { selectTogether } from '../db/reads/select.js';
import { fail, ok, type FieldError, type Result } from '../errors/api-error.js';
import type { QueryDtoSpec } from './catalog-types.js';
import type { EngineContext } from './engine-context.js';
import type { VersionsSeen } from '../db/table-versions/table-versions.js';
import { executeAlone, executeTogether, singleStatement, type Executed } from './execute.js';
import { plan } from './plan.js';
import type { QueryPlan } from './plan-types.js';
import { render } from './render.js';
import { parse } from './request.js';
import type { QueryRecord, QueryResponse, RecordOf } from './records.js';
import { mayTakeIndex, noRoutes, substringRoutes } from './substring-routes.js';

export interface QueryOutcome<R = QueryRecord> {
  readonly plan: QueryPlan;
  readonly response: QueryResponse<R>;
}

/** An answer of `D`'s records, and the table versions its first statement read. */
export interface PlanAnswer<D extends QueryDtoSpec> {
  readonly response: QueryResponse<RecordOf<D>>;
  readonly versions: VersionsSeen;
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
export async function runQuery<D extends QueryDtoSpec>(database: Database, dto: D, request: unknown, ctx: EngineContext, reported: readonly FieldError[] = []): Promise<Result<QueryOutcome<RecordOf<D>>>> {
  const planned = compile(dto, request, ctx, reported);
  if (!planned.ok) return planned;
  const executed = await runPlan(database, dto, planned.value, ctx);
  return executed.ok ? { ok: true, value: { plan: planned.value, response: executed.value.response } } : executed;
}

/**
 * Runs a plan `compile` made of a request of `dto`; `dto` gives the records their type.
 * `versioned`: tables whose versions the answer's first statement reads beside its rows.
 */
export async function runPlan<D extends QueryDtoSpec>(database: Database, _dto: D, plan: QueryPlan, ctx: EngineContext, versioned: readonly string[] = []): Promise<Result<PlanAnswer<D>>> {
  // The plan projects only `dto`'s fields and format-values converts each by its family,
  // which is what RecordOf<D> says of them.
  try {
    return ok((await answer(database, plan, ctx, versioned)) as PlanAnswer<D>);
  } catch (err) {
    return fail(translateDbError(err));
  }
}

function answer(database: Database, plan: QueryPlan, ctx: EngineContext, versioned: readonly string[]): Promise<Executed> {
  // A filter the substring index may serve asks the index first, on the connection (and, on
  // SQLite, the read transaction) of the statements that follow.
  if (mayTakeIndex(plan, database.dialect, ctx.substringIndex)) {
    return selectTogether(database, ctx.queryTimeoutMs, async (select) => {
      const routes = await substringRoutes(database, select, plan, ctx.substringUpTo);
      return executeTogether(database, select, render(database.dialect, plan, ctx, routes, versioned), plan, ctx);
    });
  }
  const rendered = render(database.dialect, plan, ctx, noRoutes, versioned);
  // Most requests have the page alone: one statement, on a connection of its own.
  if (singleStatement(rendered)) return executeAlone(database, rendered, plan, ctx);
  return selectTogether(database, ctx.queryTimeoutMs, (select) => executeTogether(database, select, rendered, plan, ctx));
}
