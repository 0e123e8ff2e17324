// Include=EstimatedTotal (design.md §7): a count that stays cheap on any filter. Exact up to
// ESTIMATE_EXACT_UP_TO rows, from a count that stops one row past it; beyond that the
// engine's own estimate (select-parts.ts EngineEstimate), or, where the engine keeps none
// for the filter, the capped count as a lower bound.
import type { Table } from '../db/select.js';
import type { EngineEstimate, SelectParts } from './select-parts.js';

/** `exact`: the count; `estimate`: the engine's figure; `atLeast`: a lower bound. */
export type EstimateKind = 'exact' | 'estimate' | 'atLeast';

export interface Estimated {
  readonly estimatedTotal: number;
  readonly estimatedTotalKind: EstimateKind;
}

type Run = (parts: SelectParts) => Promise<Table>;

const cell = (table: Table, column: string): unknown => table.rows[0]?.[table.columns.indexOf(column)];

/** The engine's figure for the filter's rows, or undefined when it has none (no statistics yet). */
export async function runEstimate(engine: EngineEstimate, run: Run, explain: Run): Promise<number | undefined> {
  if (engine.kind === 'explain') {
    const plan = await explain(engine.query);
    const rows = Number(cell(plan, 'rows'));
    // MySQL 8 adds `filtered`, the share of those rows the rest of the WHERE keeps; MariaDB's plain EXPLAIN has none.
    const filtered = plan.columns.includes('filtered') ? Number(cell(plan, 'filtered')) / 100 : 1;
    return Number.isFinite(rows) && Number.isFinite(filtered) ? Math.round(rows * filtered) : undefined;
  }
  let stat: unknown;
  try {
    stat = cell(await run(engine.query), 'stat');
  } catch {
    // sqlite_stat1 exists only once ANALYZE (or PRAGMA optimize) has run on the file.
    return undefined;
  }
  const figure = typeof stat === 'string' ? Number(stat.split(' ')[engine.figure]) : Number.NaN;
  return Number.isFinite(figure) ? figure * engine.times : undefined;
}

/** The answer from the capped count (at most limit + 1) and the engine's figure. */
export function estimatedTotal(counted: number, limit: number, engine: number | undefined): Estimated {
  if (counted <= limit) return { estimatedTotal: counted, estimatedTotalKind: 'exact' };
  // The count already saw more rows than an estimate below it claims.
  if (engine === undefined) return { estimatedTotal: counted, estimatedTotalKind: 'atLeast' };
  return { estimatedTotal: Math.max(engine, counted), estimatedTotalKind: 'estimate' };
}
