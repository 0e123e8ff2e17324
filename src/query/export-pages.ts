// An export's pages (design.md §7, Exports): each the rows after the last row of the one
// before, through the keyset cursor's statements (render-keyset.ts), so no page uses
// OFFSET and every page is a range of the order's index however deep it lies; all of them
// on one consistent view (`select`, db/reads/select.ts openSnapshot).
import type { Database } from '../db/database.js';
import { cellOf, keyOf, type Cells, type SelectOn, type Table } from '../db/reads/select.js';
import type { EngineContext } from './engine-context.js';
import { cursorValue, keysOf, recordOf } from './format-values.js';
import { encodeCursor, type CursorValue } from './cursor.js';
import { queryBinding } from './plan-after.js';
import type { Keyset, QueryPlan } from './plan-types.js';
import type { QueryRecord } from './records.js';
import { render } from './render.js';
import { statementCacheOf } from './statements.js';

export interface ExportPage {
  /** The page's records, at most the plan's Take. */
  readonly records: readonly QueryRecord[];
  /** Where the next page begins: the sort values of the page's last row. */
  readonly after: Keyset | undefined;
  /** Whether rows lie past this page. */
  readonly more: boolean;
}

/** The page after `after` (the first page without it), read with `select`. */
export async function readExportPage(database: Database, select: SelectOn, plan: QueryPlan, after: Keyset | undefined, ctx: Pick<EngineContext, 'deferredJoinFrom' | 'estimateExactUpTo'>): Promise<ExportPage> {
  const rendered = render(database.dialect, { ...plan, after }, ctx);
  const statements = statementCacheOf(database);
  const take = plan.paging.take;
  const rows: Cells[] = [];
  let table: Table | undefined;
  // Take + 1 rows at most, the last only telling whether more lie past the page; after a
  // cursor, one statement per keyset group while the page is short.
  for (const parts of rendered.page) {
    const want = take + 1 - rows.length;
    if (want <= 0) break;
    const { sql, bindings } = statements.statement({ ...parts, limit: want });
    table = await select(sql, bindings);
    for (const row of table.rows) rows.push(row);
  }
  if (table === undefined || rows.length === 0) return { records: [], after, more: false };
  const shown = rows.length > take ? rows.slice(0, take) : rows;
  const keys = keysOf(table, plan.projection);
  const records = shown.map((row) => recordOf(row, plan.projection, keys));
  const last = shown.at(-1)!;
  const read = table;
  const values = rendered.cursorColumns.map((c) => cursorValue(cellOf(last, keyOf(read, c))));
  return { records, after: Object.freeze({ kind: 'keyset', values: Object.freeze(values) }), more: rows.length > take };
}

/** The cursor (`After`) of the row whose sort values `after` holds: a page of the query continues from it too. */
export function exportCursor(plan: QueryPlan, after: Keyset, ctx: Pick<EngineContext, 'cursorKey'>): string {
  return encodeCursor(after.values as CursorValue[], queryBinding(plan.dto, plan.conditions, plan.order), ctx.cursorKey);
}
