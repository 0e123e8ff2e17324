// Stage 3, second half: SELECT parts -> SQL text and bindings. Knex renders each query
// shape once, through its public toSQL() (src/db/prepared.ts: values replaced by markers,
// so the binding order is read off Knex, never assumed); later queries of the shape only
// bind their values. That saves 25-45 µs of CPU per request against building the query
// with Knex every time (design.md §8).
//
// The shape is everything but the bound values: the table, the columns, each fragment's
// SQL and the identifiers it binds, whether there is a LIMIT and an OFFSET.
import type { Knex } from 'knex';
import { partOf, perDatabase, type Database } from '../db/database.js';
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

/**
 * The templates by shape, looked up one component at a time (form, table, each column,
 * each fragment's tag, SQL and identifiers, ...) rather than by a key string, which would
 * allocate about 1 KB per statement.
 */
interface ShapeNode {
  readonly next: Map<unknown, ShapeNode>;
  /** Set at the node that ends a shape: its template, or null when Knex's rendering cannot be reused. */
  template?: Template | null;
}

const newNode = (): ShapeNode => ({ next: new Map() });

function child(node: ShapeNode, component: unknown): ShapeNode {
  let next = node.next.get(component);
  if (next === undefined) node.next.set(component, (next = newNode()));
  return next;
}

/**
 * The node of `parts`' shape, and its values in binding-list order: fragments
 * (expressions, where, order), then LIMIT and OFFSET. `markedOf` numbers the markers in the
 * same order; test/unit/query-statements.test.ts holds the two to Knex's own bindings.
 */
function shapeOf(root: ShapeNode, parts: SelectParts, values: Bound[]): ShapeNode {
  let node = child(child(child(root, parts.form), parts.table), parts.columns.length);
  for (const c of parts.columns) node = child(node, c);
  node = child(child(node, parts.notNull), parts.key);
  for (const f of parts.expressions) node = fragmentOf(node, 's', f, values);
  for (const f of parts.where) node = fragmentOf(node, 'w', f, values);
  if (parts.order !== undefined) node = fragmentOf(node, 'o', parts.order, values);
  if (parts.outerOrder !== undefined) node = fragmentOf(node, 'O', parts.outerOrder, values);
  if (parts.limit !== undefined) values.push(parts.limit);
  if (parts.offset > 0) values.push(parts.offset);
  return child(child(node, parts.limit !== undefined), parts.offset > 0);
}

/** A fragment's part of the shape: its tag, its text and the identifiers it binds; its values go to `values`. */
function fragmentOf(from: ShapeNode, tag: string, f: Fragment, values: Bound[]): ShapeNode {
  let node = child(child(from, tag), f.sql);
  const kinds = identifiersOf(f.sql);
  for (let i = 0; i < f.bindings.length; i++) {
    if (kinds[i] === true) node = child(node, f.bindings[i]);
    else values.push(f.bindings[i]!);
  }
  return node;
}

/** The parts with value i (in shapeOf's order) replaced by marker(i), for Knex to render the shape. */
function markedOf(parts: SelectParts): SelectParts {
  let count = 0;
  const mark = (f: Fragment): Fragment => {
    const kinds = identifiersOf(f.sql);
    return { sql: f.sql, bindings: f.bindings.map((b, i) => (kinds[i] === true ? b : marker(count++))) };
  };
  const expressions = parts.expressions.map(mark);
  const where = parts.where.map(mark);
  const order = parts.order === undefined ? undefined : mark(parts.order);
  const outerOrder = parts.outerOrder === undefined ? undefined : mark(parts.outerOrder);
  const limit = parts.limit === undefined ? undefined : marker(count++);
  const offset = parts.offset > 0 ? marker(count++) : 0;
  return { ...parts, expressions, where, order, outerOrder, limit, offset };
}

const statementCaches = perDatabase((database) => createStatementCache(database.knex));

/** The cache of a database (database.ts), rendered by its own Knex, so in its dialect. */
export function statementCacheOf(database: Database): StatementCache {
  return partOf(database, statementCaches);
}

/**
 * Past `maxShapes` the cache starts afresh: shapes come from a closed set apart from In
 * lists of every length up to the limit, so it is reached only by a flood of those.
 */
export function createStatementCache(db: Knex, maxShapes = 2000): StatementCache {
  let root = newNode();
  let size = 0;
  return {
    get size() { return size; },
    statement(parts) {
      const values: Bound[] = [];
      let node = shapeOf(root, parts, values);
      let template = node.template;
      if (template === undefined) {
        if (size >= maxShapes) {
          root = newNode();
          size = 0;
          node = shapeOf(root, parts, []);
        }
        const probe = toKnex(db, markedOf(parts)).toSQL();
        template = node.template = templateFrom(probe.sql, probe.bindings, values.length) ?? null;
        size++;
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
    const keys = plainQuery(db, { ...parts, columns: [key], expressions: [] }).as('k');
    const q = db(parts.table)
      .select(parts.columns.map((c) => `${parts.table}.${c}`))
      .join(keys, `${parts.table}.${key}`, `k.${key}`);
    if (parts.expressions.length > 0) q.select(parts.expressions.map((e) => db.raw(e.sql, [...e.bindings])));
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
