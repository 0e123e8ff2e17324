// Stage 3, second half: SELECT parts -> SQL text and bindings. Knex renders each query
// shape once; the text is kept and later queries of the same shape only bind their values.
// Building and compiling a Knex query was about a tenth of the CPU and a tenth of the
// memory the service spent per request (scripts/bench), for text that only changes when
// the shape does.
//
// The shape is everything but the bound values: the table, the columns, each fragment's
// SQL and the identifiers it binds, whether there is a LIMIT and an OFFSET. The order in
// which Knex wants the values is not assumed: the first time a shape is seen, Knex
// renders it with a unique marker in place of every value, and the markers' order in
// Knex's bindings is the order kept for the shape.
import type { Knex } from 'knex';
import type { Bound, Fragment } from './render-conditions.js';
import { toKnex, type SelectParts } from './render.js';

export interface Statement {
  readonly sql: string;
  readonly bindings: readonly Bound[];
}

/** Where each binding of a shape's text comes from: a value by its position, or the LIMIT or OFFSET. */
type Source = number | 'limit' | 'offset';

export interface Template {
  readonly sql: string;
  readonly sources: readonly Source[];
}

export interface StatementCache {
  statement(parts: SelectParts): Statement;
  /** Shapes held now. */
  readonly size: number;
}

// Numbers no request can page by (Take is capped far below), so they cannot be mistaken
// for anything else in Knex's bindings.
const limitMarker = 2_000_000_011;
const offsetMarker = 2_000_000_013;
const valueMarker = (i: number) => `\u0000value ${i}\u0000`;

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
  return { key, values };
}

/** The parts with every value replaced by its marker, in the order shapeOf lists the values. */
function marked(parts: SelectParts): SelectParts {
  let next = 0;
  const mark = (f: Fragment): Fragment => {
    const kinds = identifiersOf(f.sql);
    return { sql: f.sql, bindings: f.bindings.map((b, i) => (kinds[i] === true ? b : valueMarker(next++))) };
  };
  // Same order as shapeOf: expressions, where, order.
  const expressions = parts.expressions.map(mark);
  const where = parts.where.map(mark);
  const order = parts.order === undefined ? undefined : mark(parts.order);
  return {
    ...parts,
    expressions,
    where,
    order,
    limit: parts.limit === undefined ? undefined : limitMarker,
    offset: parts.offset > 0 ? offsetMarker : 0,
  };
}

/**
 * A shape's template from Knex's rendering of its marked parts: the text, and where each
 * binding comes from. Undefined when Knex bound anything but a marker, bound one twice or
 * left a value out, or wrote a marker into the text (it would have inlined a value): such
 * a shape is never cached; Knex renders it on every request.
 */
export function templateFrom(sql: string, bindings: readonly unknown[], valueCount: number): Template | undefined {
  if (sql.includes('\u0000') || sql.includes(String(limitMarker)) || sql.includes(String(offsetMarker))) return undefined;
  const sources: Source[] = [];
  const seen = new Set<Source>();
  for (const b of bindings) {
    const source: Source | undefined =
      b === limitMarker ? 'limit' : b === offsetMarker ? 'offset' : typeof b === 'string' ? markerIndex(b, valueCount) : undefined;
    if (source === undefined || seen.has(source)) return undefined;
    seen.add(source);
    sources.push(source);
  }
  // Every value bound exactly once: one Knex left out would be a shape it rendered differently.
  const valuesBound = sources.filter((s) => typeof s === 'number').length;
  return valuesBound === valueCount ? { sql, sources } : undefined;
}

function markerIndex(b: string, valueCount: number): number | undefined {
  const m = /^\u0000value (\d+)\u0000$/.exec(b);
  const i = m ? Number(m[1]) : -1;
  return i >= 0 && i < valueCount ? i : undefined;
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
      return {
        sql: template.sql,
        bindings: template.sources.map((s) => (s === 'limit' ? parts.limit! : s === 'offset' ? parts.offset : values[s]!)),
      };
    },
  };
}
