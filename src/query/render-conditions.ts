// SQL for each filter operator, keyed by operator kind: a kind without a renderer does
// not compile. Each renderer is pure and returns a fragment in which `??` binds the
// column name (from the catalog) and `?` binds values; nothing is ever spliced in.
import type { OperatorKind } from './catalog-types.js';
import { escapeLike, LIKE_ESCAPE } from './like.js';

/** A bound value: booleans are bound as 1/0 (see sql-dialect.ts). */
export type Bound = number | string;

export interface Fragment {
  readonly sql: string;
  readonly bindings: readonly Bound[];
}

/** `target` is the compared expression (`??` or `fold(??)`), `column` binds its `??`. */
export type Renderer = (target: string, column: string, values: readonly Bound[]) => Fragment;

const compare = (op: string): Renderer => (target, column, [v]) => ({ sql: `${target} ${op} ?`, bindings: [column, v!] });

// LIKE with an explicit, bound escape character (see like.ts).
const like = (pattern: (v: string) => string): Renderer => (target, column, [v]) => ({
  sql: `${target} LIKE ? ESCAPE ?`,
  bindings: [column, pattern(String(v)), LIKE_ESCAPE],
});

export const conditionRenderers: Record<OperatorKind, Renderer> = {
  eq: compare('='),
  gte: compare('>='),
  gt: compare('>'),
  lt: compare('<'),
  lte: compare('<='),
  // NULL <> v is NULL, not true, so NULL never matches here either (design.md §7).
  neq: compare('<>'),
  startsWith: like((v) => `${escapeLike(v)}%`),
  endsWith: like((v) => `%${escapeLike(v)}`),
  contains: like((v) => `%${escapeLike(v)}%`),
  like: like((v) => v),
  // BETWEEN is inclusive and false when low > high, on both engines.
  between: (target, column, [low, high]) => ({ sql: `${target} BETWEEN ? AND ?`, bindings: [column, low!, high!] }),
  // An empty In matches no rows (design.md §7); `IN ()` is a syntax error on MySQL.
  in: (target, column, values) =>
    values.length === 0
      ? { sql: '1 = 0', bindings: [] }
      : { sql: `${target} IN (${values.map(() => '?').join(', ')})`, bindings: [column, ...values] },
};
