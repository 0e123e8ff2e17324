// The engine's last stage: runs the rendered statements (page, summary, estimate, picks) and
// shapes the response: {offset, total?, estimatedTotal?, results, next?, meta?}, with the
// table versions the first statement read. Driver errors reject; run-query.ts turns them
// into a Result (db/driver-errors.ts).
import type { Database } from '../db/database.js';
import { cellOf, firstCell, keyOf, selectTable, type Cells, type SelectOn, type Table } from '../db/reads/select.js';
import { versionsOfRow, versionsUnseen, type VersionsSeen } from '../db/table-versions/table-versions.js';
import { statementCacheOf } from './statements.js';
import type { EngineContext } from './engine-context.js';
import { encodeCursor } from './cursor.js';
import { queryBinding } from './plan-after.js';
import { estimateOf } from './estimate.js';
import type { QueryRecord, QueryResponse } from './records.js';
import { cursorValue, keysOf, metaFormatters, recordOf } from './format-values.js';
import type { QueryPlan } from './plan-types.js';
import type { RenderedQuery, SelectParts } from './select-parts.js';

export type { QueryResponse } from './records.js';

const noRows: Table = { columns: [], keys: [], rows: [] };

type Run = (parts: SelectParts | undefined) => Promise<Table>;

/**
 * The page's rows: its statements in order until Take + 1 rows are in (render-keyset.ts);
 * one statement, as nearly every page has, is returned as the driver gave it. `first`: the
 * first statement's own rows, which carry the versions (render.ts).
 */
async function pageRows(page: readonly SelectParts[], run: Run): Promise<{ rows: Table; first: Table }> {
  if (page.length <= 1) {
    const table = await run(page[0]);
    return { rows: table, first: table };
  }
  let table: Table | undefined;
  let first: Table | undefined;
  const rows: Cells[] = [];
  for (const parts of page) {
    const want = parts.limit! - rows.length;
    if (want <= 0) break;
    table = await run({ ...parts, limit: want });
    first ??= table;
    rows.push(...table.rows);
  }
  return { rows: { columns: table!.columns, keys: table!.keys, rows }, first: first! };
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
function runner(database: Database, select: SelectOn): Run {
  const statements = statementCacheOf(database);
  // Not async: the driver's promise is handed on as it is, one promise fewer per statement.
  return (parts) => {
    if (parts === undefined) return Promise.resolve(noRows);
    const { sql, bindings } = statements.statement(parts);
    return select(sql, bindings);
  };
}

export interface Executed {
  readonly response: QueryResponse;
  /** The versions of the tables rendered into its first statement (render.ts). */
  readonly versions: VersionsSeen;
}

function versionsSeen(rendered: RenderedQuery, table: Table | undefined): VersionsSeen {
  const row = table?.rows[0];
  if (rendered.versions === undefined || row === undefined) return versionsUnseen;
  return { seen: true, versions: versionsOfRow(rendered.versions.tables, table!, row) };
}

/** Whether the answer is the page alone, one statement: what most requests ask. */
export const singleStatement = (rendered: RenderedQuery): boolean =>
  rendered.page.length <= 1 && rendered.summary === undefined && rendered.aggregates.length === 0 && rendered.estimate === undefined;

/** Runs the one statement of an answer (singleStatement), on a connection of its own. Driver errors reject. */
export async function executeAlone(database: Database, rendered: RenderedQuery, plan: QueryPlan, ctx: EngineContext): Promise<Executed> {
  const run = runner(database, (sql, bindings) => selectTable(database, sql, bindings, ctx.queryTimeoutMs));
  const table = await run(rendered.page[0]);
  const { results, next } = pageOf(table, plan, rendered, ctx.cursorKey);
  const response = next === undefined ? { offset: plan.paging.skip, results } : { offset: plan.paging.skip, results, next };
  return { response, versions: versionsSeen(rendered, table) };
}

/**
 * The answer of a request of several statements, all on the connection of `select` (design.md §8).
 * Each is asked once the one before has answered: selectTogether sends them one at a time
 * anyway, and a failed statement leaves none behind it to settle unobserved.
 */
export async function executeTogether(database: Database, select: SelectOn, rendered: RenderedQuery, plan: QueryPlan, ctx: EngineContext): Promise<Executed> {
  const run = runner(database, select);
  const { rows: page, first } = await pageRows(rendered.page, run);
  const summary = rendered.summary === undefined ? undefined : await run(rendered.summary);
  const known = rendered.knownTotal;
  const estimate = rendered.estimate
    ? await estimateOf(rendered.estimate, run, runner(database, (sql, bindings) => select(`EXPLAIN ${sql}`, bindings)), ctx.estimateExactUpTo)
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
  const versions = versionsSeen(rendered, rendered.versions?.in === 'summary' ? summary : first);
  const response: QueryResponse = {
    offset: plan.paging.skip,
    ...(plan.total ? { total: known ?? Number(firstCell(summary, 'total') ?? 0) } : {}),
    ...estimate,
    results,
    ...(next === undefined ? {} : { next }),
    ...(meta ? { meta } : {}),
  };
  return { response, versions };
}
