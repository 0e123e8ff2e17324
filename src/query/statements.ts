// Stage 3, second half: SELECT parts -> SQL text and bindings. Knex renders each query
// shape once (src/db/prepared.ts: values replaced by markers, so the binding order is read
// off Knex, never assumed); later queries of the shape only bind their values.
//
// The shape is everything but the bound values: the table, the columns, each fragment's
// SQL and the identifiers it binds, whether there is a LIMIT and an OFFSET.
import type { Knex } from 'knex';
import { bindingsOf, marker, templateFrom, type Template } from '../db/prepared.js';
import type { Bound, Fragment } from './render-conditions.js';
import { toKnex, type SelectParts } from './render.js';

export interface Statement {
  readonly sql: string;
  readonly bindings: readonly Bound[];
}

export interface StatementCache {
  statement(parts: SelectParts): Statement;
  /** Shapes held now. */
  readonly size: number;
}

/** Whether each placeholder of a fragment is an identifier (`??`) or a value (`?`), in order. */
const placeholderKinds = new Map<string, readonly boolean[]>();
function identifiersOf(sql: string): readonly boolean[] {
  let kinds = placeholderKinds.get(sql);
  if (kinds === undefined) {
    kinds = [...sql.matchAll(/\?\??/g)].map((m) => m[0] === '??');
    // Fragment texts come from the renderers, a closed set apart from In lists of every
    // length up to the limit; the bound only guards against a renderer that leaks values.
    if (placeholderKinds.size >= 10_000) placeholderKinds.clear();
    placeholderKinds.set(sql, kinds);
  }
  return kinds;
}

/** The shape's key and the fragments' values in order. */
function shapeOf(parts: SelectParts): { key: string; values: Bound[] } {
  const values: Bound[] = [];
  let key = `${parts.table}\u0001${parts.columns.join('\u0002')}\u0001${parts.notNull ?? ''}\u0001${parts.limit !== undefined}\u0001${parts.offset > 0}`;
  const add = (tag: string, f: Fragment) => {
    const kinds = identifiersOf(f.sql);
    key += `\u0001${tag}${f.sql}`;
    f.bindings.forEach((b, i) => {
      if (kinds[i] === true) key += `\u0002${String(b)}`;
      else values.push(b);
    });
  };
  for (const f of parts.expressions) add('s', f);
  for (const f of parts.where) add('w', f);
  if (parts.order !== undefined) add('o', parts.order);
  if (parts.limit !== undefined) values.push(parts.limit);
  if (parts.offset > 0) values.push(parts.offset);
  return { key, values };
}

/** The parts with every value replaced by its marker, in the order shapeOf lists the values. */
function marked(parts: SelectParts): SelectParts {
  let next = 0;
  const mark = (f: Fragment): Fragment => {
    const kinds = identifiersOf(f.sql);
    return { sql: f.sql, bindings: f.bindings.map((b, i) => (kinds[i] === true ? b : marker(next++))) };
  };
  // Same order as shapeOf: expressions, where, order, limit, offset.
  const expressions = parts.expressions.map(mark);
  const where = parts.where.map(mark);
  const order = parts.order === undefined ? undefined : mark(parts.order);
  const limit = parts.limit === undefined ? undefined : marker(next++);
  const offset = parts.offset > 0 ? marker(next++) : 0;
  return { ...parts, expressions, where, order, limit, offset };
}

const caches = new WeakMap<Knex, StatementCache>();

/** The cache of a Knex instance (one per pool, so one per dialect). */
export function statementCacheOf(db: Knex): StatementCache {
  let cache = caches.get(db);
  if (cache === undefined) caches.set(db, (cache = createStatementCache(db)));
  return cache;
}

export function createStatementCache(db: Knex, maxShapes = 2000): StatementCache {
  const templates = new Map<string, Template | null>();
  return {
    get size() { return templates.size; },
    statement(parts) {
      const { key, values } = shapeOf(parts);
      let template = templates.get(key);
      if (template === undefined) {
        const probe = toKnex(db, marked(parts)).toSQL();
        template = templateFrom(probe.sql, probe.bindings, values.length) ?? null;
        // Oldest first out: Maps keep insertion order.
        if (templates.size >= maxShapes) templates.delete(templates.keys().next().value!);
        templates.set(key, template);
      }
      if (template === null) {
        const { sql, bindings } = toKnex(db, parts).toSQL();
        return { sql, bindings: bindings as Bound[] };
      }
      return { sql: template.sql, bindings: bindingsOf(template, values) as Bound[] };
    },
  };
}
