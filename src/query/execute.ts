// Stage 4 of the engine: runs the rendered queries (page, summary, picks) and shapes
// the response: {offset, total?, results, meta?}. Driver failures come back as a
// Result, translated by db/driver-errors.ts; nothing is thrown out of here.
import type { Knex } from 'knex';
import { selectTable, type Table } from '../db/select.js';
import { statementCacheOf } from './statements.js';
import { fail, ok, type Result } from '../errors/api-error.js';
import type { EngineContext } from './engine-context.js';
import { metaFormatters, positionsOf, recordOf } from './format-values.js';
import type { QueryPlan } from './plan-types.js';
import { translateDbError } from '../db/driver-errors.js';
import type { RenderedQuery, SelectParts } from './select-parts.js';

export interface QueryResponse {
  readonly offset: number;
  readonly total?: number;
  readonly results: readonly Record<string, unknown>[];
  readonly meta?: Readonly<Record<string, string>>;
}

const noRows: Table = { columns: [], rows: [] };

/** The first row's cell of `column`, as aggregates and totals are read. */
const firstCell = (table: Table | undefined, column: string): unknown => table?.rows[0]?.[table.columns.indexOf(column)];

function recordsOf(table: Table, plan: QueryPlan): Record<string, unknown>[] {
  const positions = positionsOf(table.columns, plan.projection);
  return table.rows.map((row) => recordOf(row, plan.projection, positions));
}

/** Built property by property, in the order the answer lists them: object spreads cost a copy each on every request. */
function responseOf(plan: QueryPlan, results: Record<string, unknown>[], summary: Table | undefined): { offset: number; total?: number; results: Record<string, unknown>[]; meta?: Record<string, string> } {
  return plan.total
    ? { offset: plan.paging.skip, total: Number(firstCell(summary, 'total') ?? 0), results }
    : { offset: plan.paging.skip, results };
}

export async function execute(db: Knex, rendered: RenderedQuery, plan: QueryPlan, ctx: EngineContext): Promise<Result<QueryResponse>> {
  const statements = statementCacheOf(db);
  // Not async: the driver's promise is handed on as it is, one promise fewer per statement.
  const run = (parts: SelectParts | undefined): Promise<Table> => {
    if (parts === undefined) return Promise.resolve(noRows);
    const { sql, bindings } = statements.statement(parts);
    return selectTable(db, sql, bindings, ctx.queryTimeoutMs);
  };
  try {
    // Most requests have the page alone: one statement, nothing to gather.
    if (rendered.summary === undefined && rendered.aggregates.length === 0) {
      return ok(responseOf(plan, recordsOf(await run(rendered.page), plan), undefined));
    }
    // Independent statements: on MySQL they run on pooled connections side by side.
    const [page, summary, ...picks] = await Promise.all([
      run(rendered.page),
      run(rendered.summary),
      ...rendered.aggregates.map((a) => (a.source.kind === 'pick' ? run(a.source.query) : Promise.resolve(noRows))),
    ]);
    let meta: Record<string, string> | undefined;
    rendered.aggregates.forEach(({ aggregate, source }, i) => {
      const values = source.kind === 'summary' ? source.aliases.map((a) => firstCell(summary, a)) : [firstCell(picks[i], source.column)];
      const text = metaFormatters[aggregate.fn](values, aggregate.field);
      if (text !== undefined) (meta ??= {})[aggregate.key] = text;
    });
    const response = responseOf(plan, recordsOf(page!, plan), summary);
    if (meta) response.meta = meta;
    return ok(response);
  } catch (err) {
    return fail(translateDbError(err));
  }
}
