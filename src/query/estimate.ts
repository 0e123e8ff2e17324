// Include=EstimatedTotal (design.md §7): a count that stays cheap on any filter. Exact up to
// ESTIMATE_EXACT_UP_TO rows, from a count that stops one row past it; beyond that the
// engine's own estimate (select-parts.ts EngineEstimate), or, where the engine keeps none
// for the filter, the capped count as a lower bound.
import { firstCell, type Table } from '../db/select.js';
import type { EngineEstimate, EstimateParts, SelectParts } from './select-parts.js';

/** `exact`: the count; `estimate`: the engine's figure; `atLeast`: a lower bound. */
export type EstimateKind = 'exact' | 'estimate' | 'atLeast';

export interface Estimated {
  readonly estimatedTotal: number;
  readonly estimatedTotalKind: EstimateKind;
}

type Run = (parts: SelectParts) => Promise<Table>;

/**
 * How far past the exact limit an index's own row estimate must be to settle the answer
 * without the count: index dives and InnoDB's table statistics misjudge a range by well
 * under this factor, so a figure this high cannot hide a count at or below the limit.
 */
const settleFactor = 4;

/** EXPLAIN's row estimate, or undefined when the plan gives none. */
function explained(plan: Table): number | undefined {
  const rows = Number(firstCell(plan, 'rows'));
  // MySQL 8 adds `filtered`, the share of those rows the rest of the WHERE keeps; MariaDB's plain EXPLAIN has none.
  const filtered = plan.columns.includes('filtered') ? Number(firstCell(plan, 'filtered')) / 100 : 1;
  return Number.isFinite(rows) && Number.isFinite(filtered) ? Math.round(rows * filtered) : undefined;
}

/** The figure of ANALYZE's statistics, or undefined when it has none (no statistics yet). */
async function statistic(engine: Extract<EngineEstimate, { kind: 'stat' }>, run: Run): Promise<number | undefined> {
  let stat: unknown;
  try {
    stat = firstCell(await run(engine.query), 'stat');
  } catch {
    // sqlite_stat1 exists only once ANALYZE (or PRAGMA optimize) has run on the file.
    return undefined;
  }
  const figure = typeof stat === 'string' ? Number(stat.split(' ')[engine.figure]) : Number.NaN;
  return Number.isFinite(figure) ? figure * engine.times : undefined;
}

/** The answer from the capped count (at most limit + 1) and the engine's figure. */
function estimatedTotal(counted: number, limit: number, engine: number | undefined): Estimated {
  if (counted <= limit) return { estimatedTotal: counted, estimatedTotalKind: 'exact' };
  // The count already saw more rows than an estimate below it claims.
  if (engine === undefined) return { estimatedTotal: counted, estimatedTotalKind: 'atLeast' };
  return { estimatedTotal: Math.max(engine, counted), estimatedTotalKind: 'estimate' };
}

/**
 * The estimate of a query. Where the optimizer reads the filter as one range of an index,
 * EXPLAIN comes first and a figure far past the limit is the answer, so a large result costs
 * the plan alone; otherwise the capped count decides, beside the engine's figure.
 */
export async function estimateOf(parts: EstimateParts, run: Run, explain: Run, limit: number): Promise<Estimated> {
  const counted = async (): Promise<number> => Number(firstCell(await run(parts.capped), 'n') ?? 0);
  const engine = parts.engine;
  if (engine === undefined) return estimatedTotal(await counted(), limit, undefined);
  if (engine.kind === 'stat') {
    const [count, figure] = await Promise.all([counted(), statistic(engine, run)]);
    return estimatedTotal(count, limit, figure);
  }
  if (engine.dived === undefined) {
    const [count, plan] = await Promise.all([counted(), explain(engine.query)]);
    return estimatedTotal(count, limit, explained(plan));
  }
  const plan = await explain(engine.query);
  const figure = explained(plan);
  const index = engine.dived.index;
  const readsIndex = index === undefined || firstCell(plan, 'key') === index;
  if (figure !== undefined && readsIndex && figure > limit * settleFactor) return { estimatedTotal: figure, estimatedTotalKind: 'estimate' };
  return estimatedTotal(await counted(), limit, figure);
}
