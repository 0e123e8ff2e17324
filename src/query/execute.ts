// Stage 4 of the engine: runs the rendered queries (page, summary, picks) and shapes
// the response: {offset, total?, results, meta?}. Driver failures come back as a
// Result, translated by db/driver-errors.ts; nothing is thrown out of here.
import type { Knex } from 'knex';
import { selectRows } from '../db/select.js';
import { statementCacheOf } from './statements.js';
import { fail, ok, type Result } from '../errors/api-error.js';
import type { EngineContext } from './engine-context.js';
import { metaFormatters, recordOf } from './format-values.js';
import type { QueryPlan } from './plan-types.js';
import { translateDbError } from '../db/driver-errors.js';
import type { RenderedQuery, SelectParts } from './select-parts.js';

export interface QueryResponse {
  readonly offset: number;
  readonly total?: number;
  readonly results: readonly Record<string, unknown>[];
  readonly meta?: Readonly<Record<string, string>>;
}

type Row = Record<string, unknown>;

export async function execute(db: Knex, rendered: RenderedQuery, plan: QueryPlan, ctx: EngineContext): Promise<Result<QueryResponse>> {
  const statements = statementCacheOf(db);
  // Not async: the driver's promise is handed on as it is, one promise fewer per statement.
  const run = (parts: SelectParts | undefined): Promise<Row[]> => {
    if (parts === undefined) return Promise.resolve([]);
    const { sql, bindings } = statements.statement(parts);
    return selectRows(db, sql, bindings, ctx.queryTimeoutMs);
  };
  try {
    // Independent statements: on MySQL they run on pooled connections side by side. Most
    // requests have the page alone, which skips the gathering.
    const alone = rendered.summary === undefined && rendered.aggregates.length === 0;
    const [rows, summaryRows, ...picks] = alone ? [await run(rendered.page)] : await Promise.all([
      run(rendered.page),
      run(rendered.summary),
      ...rendered.aggregates.map((a) => (a.source.kind === 'pick' ? run(a.source.query) : Promise.resolve([]))),
    ]);
    const summary = summaryRows?.[0] ?? {};
    let meta: Record<string, string> | undefined;
    rendered.aggregates.forEach(({ aggregate, source }, i) => {
      const values = source.kind === 'summary' ? source.aliases.map((a) => summary[a]) : [picks[i]?.[0]?.[source.column]];
      const text = metaFormatters[aggregate.fn](values, aggregate.field);
      if (text !== undefined) (meta ??= {})[aggregate.key] = text;
    });
    const results = (rows ?? []).map((r) => recordOf(r, plan.projection));
    // Built property by property, in the order the answer lists them: object spreads
    // cost a copy each on every request.
    const response: { offset: number; total?: number; results: typeof results; meta?: Record<string, string> } = plan.total
      ? { offset: plan.paging.skip, total: Number(summary['total'] ?? 0), results }
      : { offset: plan.paging.skip, results };
    if (meta) response.meta = meta;
    return ok(response);
  } catch (err) {
    return fail(translateDbError(err));
  }
}
