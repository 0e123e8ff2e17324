// Stage 3, second half: SELECT parts -> SQL text and bindings. Knex renders each query
// shape once (src/db/prepared.ts: values replaced by markers, so the binding order is read
// off Knex, never assumed); later queries of the shape only bind their values.
//
// The shape is everything but the bound values: the table, the columns, each fragment's
// SQL and the identifiers it binds, whether there is a LIMIT and an OFFSET.
import type { Knex } from 'knex';
import { bindingsOf, marker, templateFrom, type Template } from '../db/prepared.js';
import type { Bound, Fragment } from './render-conditions.js';
import type { SelectParts } from './select-parts.js';

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

interface Shape {
  readonly key: string;
  /** The query's values in binding-list order: fragments (expressions, where, order), then LIMIT and OFFSET. */
  readonly values: Bound[];
  /** With `mark`: the parts with value i replaced by marker(i), for Knex to render the shape. */
  readonly marked?: SelectParts;
}

/**
 * One pass over the parts defines the order of the values, for the key and the markers
 * alike. Without `mark` (every request) it allocates nothing but the key and the values.
 */
function shapeOf(parts: SelectParts, mark = false): Shape {
  const values: Bound[] = [];
  let key = `${parts.form}\u0001${parts.table}\u0001${parts.columns.join('\u0002')}\u0001${parts.notNull ?? ''}\u0001${parts.key ?? ''}\u0001${parts.limit !== undefined}\u0001${parts.offset > 0}`;
  const marked = mark ? { expressions: [] as Fragment[], where: [] as Fragment[], order: undefined as Fragment | undefined, outerOrder: undefined as Fragment | undefined } : undefined;
  const add = (tag: string, f: Fragment): Fragment | undefined => {
    const kinds = identifiersOf(f.sql);
    key += `\u0001${tag}${f.sql}`;
    const bindings: Bound[] | undefined = mark ? [] : undefined;
    f.bindings.forEach((b, i) => {
      if (kinds[i] === true) {
        key += `\u0002${String(b)}`;
        bindings?.push(b);
      } else {
        bindings?.push(marker(values.length));
        values.push(b);
      }
    });
    return bindings && { sql: f.sql, bindings };
  };
  for (const f of parts.expressions) {
    const m = add('s', f);
    if (marked) marked.expressions.push(m!);
  }
  for (const f of parts.where) {
    const m = add('w', f);
    if (marked) marked.where.push(m!);
  }
  if (parts.order !== undefined) {
    const m = add('o', parts.order);
    if (marked) marked.order = m;
  }
  if (parts.outerOrder !== undefined) {
    const m = add('O', parts.outerOrder);
    if (marked) marked.outerOrder = m;
  }
  const limit = parts.limit === undefined ? undefined : values.push(parts.limit) - 1;
  const offset = parts.offset > 0 ? values.push(parts.offset) - 1 : undefined;
  if (!marked) return { key, values };
  return {
    key,
    values,
    marked: { ...parts, ...marked, limit: limit === undefined ? undefined : marker(limit), offset: offset === undefined ? 0 : marker(offset) },
  };
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
        const probe = toKnex(db, shapeOf(parts, true).marked!).toSQL();
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

/** The parts as a Knex query builder: Knex quotes the identifiers and assembles the clauses. */
export function toKnex(db: Knex, parts: SelectParts): Knex.QueryBuilder {
  if (parts.form === 'countUpTo') {
    return db.count({ n: '*' }).from(plainQuery(db, { ...parts, columns: [], expressions: [{ sql: '1', bindings: [] }] }).as('c'));
  }
  if (parts.form === 'deferred') {
    const key = parts.key!;
    const keys = plainQuery(db, { ...parts, columns: [key] }).as('k');
    const q = db(parts.table)
      .select(parts.columns.map((c) => `${parts.table}.${c}`))
      .join(keys, `${parts.table}.${key}`, `k.${key}`);
    if (parts.outerOrder !== undefined) q.orderByRaw(parts.outerOrder.sql, [...parts.outerOrder.bindings]);
    return q;
  }
  return plainQuery(db, parts);
}

function plainQuery(db: Knex, parts: SelectParts): Knex.QueryBuilder {
  const q = db(parts.table);
  for (const f of parts.where) q.whereRaw(f.sql, [...f.bindings]);
  if (parts.columns.length > 0) q.select(parts.columns);
  if (parts.expressions.length > 0) q.select(parts.expressions.map((e) => db.raw(e.sql, [...e.bindings])));
  if (parts.notNull !== undefined) q.whereNotNull(parts.notNull);
  if (parts.order !== undefined) q.orderByRaw(parts.order.sql, [...parts.order.bindings]);
  if (parts.limit !== undefined) q.limit(parts.limit);
  if (parts.offset > 0) q.offset(parts.offset);
  return q;
}
