// Include=EstimatedTotal (design.md §7): a count that stays cheap on any filter. Exact up to
// ESTIMATE_EXACT_UP_TO rows, from a count that stops one row past it; beyond that the
// engine's own estimate (select-parts.ts EngineEstimate) or, on a filter no index range
// serves, a random sample of the table's rows; where neither settles it, the capped count,
// as a lower bound when the engine keeps no figure.
import { firstCell, type Table } from '../db/reads/select.js';
import type { EngineEstimate, EstimateParts, SampleParts, SelectParts } from './select-parts.js';

/** `exact`: the count; `estimate`: the engine's figure or the sample's; `atLeast`: a lower bound. */
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
 * Keys a sample reads, each one lookup of the key's index: about 2 ms on SQLite and 3.5 ms
 * on MariaDB at 1M rows, where a scan of a filter no index serves takes 28 and 80 ms.
 */
export const sampleSize = 256;

/** -ln of the chance, at most, that a filter matching no more than the limit is answered as past it: one in a billion. */
const sampleConfidence = Math.log(1e9);

/**
 * The fewest matching rows among `size` distinct random keys of a key range of `range` that
 * prove more than `limit` matching rows, but for a chance of e^-sampleConfidence. With at
 * most `limit` matching rows the matches drawn average at most mean = limit * size / range,
 * and P(X >= a) <= exp(-(a ln(a / mean) - a + mean)) (Chernoff), which holds for draws
 * without replacement too (Hoeffding).
 */
export function provingMatches(limit: number, range: number, size: number): number {
  const mean = (limit * size) / range;
  if (mean === 0) return 1;
  let a = Math.floor(mean) + 1;
  while (a * Math.log(a / mean) - a + mean < sampleConfidence) a++;
  return a;
}

/** `size` distinct keys drawn at random from [lowest, lowest + range), ascending (the lookups then walk the index in order). */
function randomKeys(lowest: number, range: number, size: number): number[] {
  const keys = new Set<number>();
  while (keys.size < size) keys.add(lowest + Math.floor(Math.random() * range));
  return [...keys].sort((a, b) => a - b);
}

/**
 * The smallest and the largest key, each one row of the key's index; undefined on an empty
 * table, or when the read fails: the count that follows then runs and reports the failure.
 */
async function keyEnds(sample: SampleParts, run: Run): Promise<{ lowest: number; range: number } | undefined> {
  try {
    const [lowest, highest] = (await Promise.all([run(sample.lowest), run(sample.highest)])).map((t) => Number(firstCell(t, sample.key)));
    return Number.isSafeInteger(lowest) && Number.isSafeInteger(highest) ? { lowest: lowest!, range: highest! - lowest! + 1 } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The filter's rows among `sampleSize` keys drawn at random between the table's ends, scaled
 * to the range, when they prove more than `limit` rows (provingMatches); otherwise undefined,
 * and the count decides. A range within a few times the limit or the sample is counted at
 * once: that count is cheap, and a sample of most of the table proves little. Keys missing
 * from the range (deleted rows) only lower the matches drawn, so they never make a small
 * result look large.
 */
async function sampled(sample: SampleParts, ends: Promise<{ lowest: number; range: number } | undefined>, run: Run, limit: number): Promise<Estimated | undefined> {
  const bounds = await ends;
  if (bounds === undefined || bounds.range <= settleFactor * Math.max(limit, sampleSize)) return undefined;
  const keys = randomKeys(bounds.lowest, bounds.range, sampleSize);
  const matches = Number(firstCell(await run(sample.matching(keys)), 'n') ?? 0);
  if (matches < provingMatches(limit, bounds.range, sampleSize)) return undefined;
  return { estimatedTotal: Math.round((matches * bounds.range) / sampleSize), estimatedTotalKind: 'estimate' };
}

/**
 * The estimate of a query. Where the optimizer reads the filter as one range of an index,
 * EXPLAIN comes first and a figure far past the limit is the answer, so a large result costs
 * the plan alone. Where no index range serves the filter and the plan may read far more rows
 * than the limit, a sample comes next. Otherwise the capped count decides, beside the
 * engine's figure.
 */
export async function estimateOf(parts: EstimateParts, run: Run, explain: Run, limit: number): Promise<Estimated> {
  const counted = async (): Promise<number> => Number(firstCell(await run(parts.capped), 'n') ?? 0);
  const engine = parts.engine;
  const sample = parts.sample;
  if (engine === undefined) {
    const settled = sample && (await sampled(sample, keyEnds(sample, run), run, limit));
    return settled || estimatedTotal(await counted(), limit, undefined);
  }
  if (engine.kind === 'stat') {
    const [count, figure] = await Promise.all([counted(), statistic(engine, run)]);
    return estimatedTotal(count, limit, figure);
  }
  if (engine.dived === undefined) {
    // The key's ends are asked beside the plan: two reads of one index entry each, and no wait when the sample follows.
    const ends = sample && keyEnds(sample, run);
    const figure = explained(await explain(engine.query));
    const settled = sample && ends && (figure === undefined || figure > limit * settleFactor) && (await sampled(sample, ends, run, limit));
    if (settled) return settled;
    return estimatedTotal(await counted(), limit, figure);
  }
  const plan = await explain(engine.query);
  const figure = explained(plan);
  const index = engine.dived.index;
  const readsIndex = index === undefined || firstCell(plan, 'key') === index;
  if (figure !== undefined && readsIndex && figure > limit * settleFactor) return { estimatedTotal: figure, estimatedTotalKind: 'estimate' };
  return estimatedTotal(await counted(), limit, figure);
}
