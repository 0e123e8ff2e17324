// The one place where MySQL and SQLite differ in the SQL the engine writes. MySQL gets
// case- and accent-insensitive, NO PAD comparison from the column collation (see
// src/db/collation.ts), so plain `col = ?` is right there. SQLite has no such collation
// and better-sqlite3 cannot register one, so it compares fold(col) with values folded in
// JS by the same function (src/db/fold.ts); the fold(col) expression indexes of the
// migration serve those comparisons.
import type { Dialect } from '../db/dialect.js';
import { fold, foldFunction } from '../db/fold.js';
import type { FieldSpec, OperatorKind } from './catalog-types.js';
import type { Scalar } from './plan-types.js';
import { conditionRenderers, type Bound, type Renderer } from './render-conditions.js';

export interface SqlDialect {
  readonly name: Dialect;
  /** A field as compared and sorted, with `??` standing for its column (the family decides). */
  compared(field: Pick<FieldSpec, 'family'>): string;
  /** A value as bound against compared(field). */
  bind(field: FieldSpec, value: Scalar): Bound;
  /** Operator renderers that differ from render-conditions.ts on this engine. */
  readonly conditions: Readonly<Record<OperatorKind, Renderer>>;
}

// Booleans are bound as 1/0: MySQL stores BOOLEAN as TINYINT(1), SQLite has no boolean
// type, and better-sqlite3 refuses JS booleans as parameters.
const bindPlain = (_: FieldSpec, v: Scalar): Bound => (typeof v === 'boolean' ? (v ? 1 : 0) : v);

const mysql: SqlDialect = {
  name: 'mysql',
  compared: () => '??',
  bind: bindPlain,
  // `col LIKE 'abc%'` is a range scan on the collated index already (MySQL manual 10.3.1,
  // "How MySQL Uses Indexes").
  conditions: conditionRenderers,
};

/**
 * The smallest string above every string that starts with `prefix`: its last code point
 * plus one (skipping the surrogate range). Undefined when there is none.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = [...prefix].map((c) => c.codePointAt(0)!);
  const last = points.pop();
  if (last === undefined || last >= 0x10ffff) return undefined;
  const next = last + 1 >= 0xd800 && last + 1 <= 0xdfff ? 0xe000 : last + 1;
  return String.fromCodePoint(...points, next);
}

/**
 * SQLite applies its LIKE optimization only to a bare indexed column, never to an
 * expression such as fold(col) (https://www.sqlite.org/optoverview.html#the_like_optimization),
 * so StartsWith adds the equivalent range on fold(col), which the expression index serves;
 * the LIKE stays to keep the exact semantics. BINARY order of UTF-8 text is code point order.
 */
const sqliteStartsWith: Renderer = (target, column, [value]) => {
  const like = conditionRenderers.startsWith(target, column, [value!]);
  const prefix = String(value);
  const upper = prefixUpperBound(prefix);
  if (prefix === '') return like;
  const range = upper === undefined ? `${target} >= ?` : `${target} >= ? AND ${target} < ?`;
  const bounds: Bound[] = upper === undefined ? [column, prefix] : [column, prefix, column, upper];
  return { sql: `${range} AND ${like.sql}`, bindings: [...bounds, ...like.bindings] };
};

const sqlite: SqlDialect = {
  name: 'sqlite',
  compared: (field) => (field.family === 'string' ? `${foldFunction}(??)` : '??'),
  bind: (field, v) => (typeof v === 'string' ? fold(v) : bindPlain(field, v)),
  conditions: { ...conditionRenderers, startsWith: sqliteStartsWith },
};

export const sqlDialects: Record<Dialect, SqlDialect> = { mysql, sqlite };
