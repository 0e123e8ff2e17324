// The route stage, between plan and render: which Contains and EndsWith conditions read their candidate rows
// from the field's trigram index (design.md §8, "Substring index"). One bounded count per
// condition asks the index how many rows its term's grams allow; up to the bound of what the
// answer needs (engine-context.ts: the first page of the key's order, or every match) the
// index route reads those rows; past it the scan costs less. The choice changes what an
// answer costs, never what it holds.
import type { Database } from '../db/database.js';
import type { Dialect } from '../db/dialect.js';
import { fold } from '../db/fold.js';
import { cellOf, firstCell, keyOf, type SelectOn } from '../db/reads/select.js';
import type { EngineContext } from './engine-context.js';
import type { Condition, QueryPlan } from './plan-types.js';
import { gramEstimates, phraseCount } from './render-route-probe.js';

/**
 * How the index narrows one condition's rows: an FTS5 phrase (SQLite) or the two rarest
 * grams at their distance in the term (MySQL). `candidates`: the rows the index allows, at most the bound of what the answer needs (substring-bounds.ts). `exact`: the
 * index alone decides (a phrase of a Contains holds exactly the texts that contain its term),
 * so `candidates` is the condition's count and no LIKE is needed beside it.
 */
export type SubstringRoute =
  | { readonly kind: 'match'; readonly match: string; readonly candidates: number; readonly exact: boolean }
  | { readonly kind: 'grams'; readonly rarest: TermGram; readonly next: TermGram | undefined; readonly candidates: number; readonly exact: false };

export type SubstringRoutes = ReadonlyMap<Condition, SubstringRoute>;

export const noRoutes: SubstringRoutes = new Map();

/** Whether the answer needs every matching row, not only the first of the key's order. */
const needsEveryMatch = (plan: QueryPlan): boolean => plan.total || plan.estimatedTotal || plan.order[0]?.field.name !== plan.dto.primaryKey;

/** Grams probed at most per term: evenly spread, they find a rare one as well as all of them would. */
const gramsProbed = 8;

/** A gram of a term, with its offset in it (code points, as both engines count characters). */
export interface TermGram {
  readonly gram: string;
  readonly offset: number;
}

/** The distinct trigrams of `term` at their first offsets, at most `gramsProbed`, evenly spread. */
export function gramsOf(term: string): TermGram[] {
  const chars = [...term];
  const seen = new Map<string, number>();
  for (let i = 0; i + 3 <= chars.length; i++) {
    const gram = chars.slice(i, i + 3).join('');
    if (!seen.has(gram)) seen.set(gram, i);
  }
  const all = [...seen].map(([gram, offset]) => ({ gram, offset }));
  if (all.length <= gramsProbed) return all;
  return Array.from({ length: gramsProbed }, (_, i) => all[Math.round((i * (all.length - 1)) / (gramsProbed - 1))]!);
}

/** The term of a condition the index can serve: Contains or EndsWith on an indexed field, of 3 characters or more. */
function indexable(c: Condition, dialect: Dialect): string | undefined {
  if ((c.operator !== 'contains' && c.operator !== 'endsWith') || c.field.substringIndex === undefined) return undefined;
  const term = dialect === 'sqlite' ? fold(String(c.values[0])) : String(c.values[0]);
  return [...term].length >= 3 ? term : undefined;
}

/** Whether any condition of `plan` may take the index (no statement needed to say so). */
export const mayTakeIndex = (plan: QueryPlan, dialect: Dialect, enabled: boolean): boolean =>
  enabled && plan.conditions.some((c) => indexable(c, dialect) !== undefined);

/** An FTS5 phrase of the whole term: a quoted string, `"` doubled. */
const phraseOf = (term: string): string => `"${term.replaceAll('"', '""')}"`;

async function routeOf(database: Database, select: SelectOn, c: Condition, term: string, upTo: number, firstPage: number): Promise<SubstringRoute | undefined> {
  const index = c.field.substringIndex!;
  const db = database.knex;
  if (database.dialect === 'sqlite') {
    const match = phraseOf(term);
    const { sql, bindings } = phraseCount(db, index, match, upTo + 1);
    const n = Number(firstCell(await select(sql, bindings), 'n'));
    return n <= upTo ? { kind: 'match', match, candidates: n, exact: c.operator === 'contains' } : undefined;
  }
  // MariaDB's own estimate of each gram's rows, in one round trip (render-route-probe.ts).
  const grams = gramsOf(term);
  const estimate = gramEstimates(db, index, grams.map((g) => g.gram));
  const plan = await select(estimate.sql, estimate.bindings);
  const [id, rows] = [keyOf(plan, 'id'), keyOf(plan, 'rows')];
  const estimates = grams.map((g, i) => {
    const row = plan.rows.find((r) => Number(cellOf(r, id)) === i + 1);
    const n = row === undefined ? Number.NaN : Number(cellOf(row, rows));
    // A plan without the gram's figure says nothing of it: the gram is then taken as common.
    return { ...g, n: Number.isFinite(n) ? n : Number.POSITIVE_INFINITY };
  });
  const [rarest, next] = estimates.sort((a, b) => a.n - b.n);
  if (rarest!.n > upTo) return undefined;
  // The next rarest gram pays for its lookup where the rarest is rare; past that the two are
  // mostly found together (`ros`, `ssi`) and its lookups cost what the table's would.
  return { kind: 'grams', rarest: rarest!, next: rarest!.n <= firstPage ? next : undefined, candidates: rarest!.n, exact: false };
}

/** The index routes of `plan`'s conditions, asked on the request's own connection (`select`). */
export async function substringRoutes(database: Database, select: SelectOn, plan: QueryPlan, bounds: EngineContext['substringUpTo']): Promise<SubstringRoutes> {
  const { dialect } = database;
  let routes: Map<Condition, SubstringRoute> | undefined;
  for (const c of plan.conditions) {
    const term = indexable(c, dialect);
    const route = term === undefined ? undefined : await routeOf(database, select, c, term, needsEveryMatch(plan) ? bounds.everyMatch : bounds.firstPage, bounds.firstPage);
    if (route !== undefined) (routes ??= new Map()).set(c, route);
  }
  return routes ?? noRoutes;
}
