// Stage 4 of the engine: runs the rendered queries (page, summary, estimate, picks) and
// shapes the response: {offset, total?, estimatedTotal?, results, next?, meta?}. Driver failures come back as a
// Result, translated by db/driver-errors.ts; nothing is thrown out of here.
import type { Knex } from 'knex';
import { cellOf, firstCell, keyOf, selectTable, selectTogether, type Cells, type SelectOn, type Table } from '../db/select.js';
import { statementCacheOf } from './statements.js';
import { fail, ok, type Result } from '../errors/api-error.js';
import type { EngineContext } from './engine-context.js';
import { encodeCursor } from './cursor.js';
import { queryBinding } from './plan-after.js';
import { estimateOf } from './estimate.js';
import type { QueryRecord, QueryResponse } from './records.js';
import { cursorValue, keysOf, metaFormatters, recordOf } from './format-values.js';
import type { QueryPlan } from './plan-types.js';
import { translateDbError } from '../db/driver-errors.js';
import type { RenderedQuery, SelectParts } from './select-parts.js';
import { dialectOf } from '../db/dialect.js';
import { mayTakeIndex, noRoutes, substringRoutes, type SubstringRoutes } from './substring-routes.js';

export type { QueryResponse } from './records.js';

const noRows: Table = { columns: [], keys: [], rows: [] };

type Run = (parts: SelectParts | undefined) => Promise<Table>;

/**
 * The page's rows: its statements in order until Take + 1 rows are in (render-keyset.ts);
 * one statement, as nearly every page has, is returned as the driver gave it.
 */
function pageRows(page: readonly SelectParts[], run: Run): Promise<Table> {
  return page.length <= 1 ? run(page[0]) : groupedRows(page, run);
}

async function groupedRows(page: readonly SelectParts[], run: Run): Promise<Table> {
  let table: Table | undefined;
  const rows: Cells[] = [];
  for (const parts of page) {
    const want = parts.limit! - rows.length;
    if (want <= 0) break;
    table = await run({ ...parts, limit: want });
    rows.push(...table.rows);
  }
  return { columns: table!.columns, keys: table!.keys, rows };
}

/** The records of a page (Take rows at most) and, when a row lies past them, the cursor that follows the last. */
function pageOf(table: Table, plan: QueryPlan, rendered: RenderedQuery, key: Buffer): { results: QueryRecord[]; next?: string } {
  const keys = keysOf(table, plan.projection);
  const shown = table.rows.length > plan.paging.take ? table.rows.slice(0, plan.paging.take) : table.rows;
  const results = shown.map((row) => recordOf(row, plan.projection, keys));
  if (shown.length === table.rows.length || shown.length === 0) return { results };
  const last = shown.at(-1)!;
  const values = rendered.cursorColumns.map((c) => cursorValue(cellOf(last, keyOf(table, c))));
  return { results, next: encodeCursor(values, queryBinding(plan.dto, plan.conditions, plan.order), key) };
}

/** Runs SELECT parts through `select`, as the statement cache renders them; no parts, no rows. */
function runner(db: Knex, select: SelectOn): Run {
  const statements = statementCacheOf(db);
  // Not async: the driver's promise is handed on as it is, one promise fewer per statement.
  return (parts) => {
    if (parts === undefined) return Promise.resolve(noRows);
    const { sql, bindings } = statements.statement(parts);
    return select(sql, bindings);
  };
}

/** The plan's statements for the index routes chosen (render.ts). */
export type Renderer = (routes: SubstringRoutes) => RenderedQuery;

export async function execute(db: Knex, render: Renderer, plan: QueryPlan, ctx: EngineContext): Promise<Result<QueryResponse>> {
  try {
    // A filter the substring index may serve asks the index first, on the request's own connection.
    if (mayTakeIndex(plan, dialectOf(db), ctx.substringIndex)) {
      return ok(await selectTogether(db, ctx.queryTimeoutMs, async (select) => gathered(db, select, render(await substringRoutes(db, select, plan)), plan, ctx)));
    }
    const rendered = render(noRoutes);
    // Most requests have the page alone: one statement, on a connection of its own.
    if (rendered.page.length <= 1 && rendered.summary === undefined && rendered.aggregates.length === 0 && rendered.estimate === undefined) {
      const run = runner(db, (sql, bindings) => selectTable(db, sql, bindings, ctx.queryTimeoutMs));
      const { results, next } = pageOf(await run(rendered.page[0]), plan, rendered, ctx.cursorKey);
      return ok(next === undefined ? { offset: plan.paging.skip, results } : { offset: plan.paging.skip, results, next });
    }
    return ok(await selectTogether(db, ctx.queryTimeoutMs, (select) => gathered(db, select, rendered, plan, ctx)));
  } catch (err) {
    return fail(translateDbError(err));
  }
}

/**
 * The answer of a request of several statements, all on the connection of `select` (design.md §8).
 * Each is asked once the one before has answered: selectTogether sends them one at a time
 * anyway, and a failed statement leaves none behind it to settle unobserved.
 */
async function gathered(db: Knex, select: SelectOn, rendered: RenderedQuery, plan: QueryPlan, ctx: EngineContext): Promise<QueryResponse> {
  const run = runner(db, select);
  const page = await pageRows(rendered.page, run);
  const summary = rendered.summary === undefined ? undefined : await run(rendered.summary);
  const known = rendered.knownTotal;
  const estimate = rendered.estimate
    ? await estimateOf(rendered.estimate, run, runner(db, (sql, bindings) => select(`EXPLAIN ${sql}`, bindings)), ctx.estimateExactUpTo)
    : plan.estimatedTotal && known !== undefined
      ? ({ estimatedTotal: known, estimatedTotalKind: 'exact' } as const)
      : undefined;
  let meta: Record<string, string> | undefined;
  for (const { aggregate, source } of rendered.aggregates) {
    const values = source.kind === 'summary' ? source.aliases.map((a) => firstCell(summary, a)) : [firstCell(await run(source.query), source.column)];
    const text = metaFormatters[aggregate.fn](values, aggregate.field);
    if (text !== undefined) (meta ??= {})[aggregate.key] = text;
  }
  const { results, next } = pageOf(page, plan, rendered, ctx.cursorKey);
  return {
    offset: plan.paging.skip,
    ...(plan.total ? { total: known ?? Number(firstCell(summary, 'total') ?? 0) } : {}),
    ...estimate,
    results,
    ...(next === undefined ? {} : { next }),
    ...(meta ? { meta } : {}),
  };
}
