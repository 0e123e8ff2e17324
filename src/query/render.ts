// Stage 3 of the engine: the plan -> the SELECTs that answer it, as data (select-parts.ts)
// that statements.ts turns into SQL text through Knex. The only module (with
// statements.ts) that builds SQL. Identifiers come from the plan's catalog entries and are
// bound with `??`; every value is a `?` parameter.
import type { Dialect } from '../db/dialect.js';
import { versionColumns } from '../db/table-versions/table-versions.js';
import type { FieldSpec } from './catalog-types.js';
import type { OrderTerm, QueryPlan } from './plan-types.js';
import type { EngineContext } from './engine-context.js';
import { aggregateRenderers } from './render-aggregates.js';
import { engineEstimates } from './render-estimate.js';
import { keysetGroups } from './render-keyset.js';
import type { Fragment } from './render-conditions.js';
import type { RenderedQuery, SampleParts, SelectParts } from './select-parts.js';
import { sqlDialects, type SqlDialect } from './sql-dialect.js';
import { bothOf, substringFragment } from './render-substring.js';
import { noRoutes, type SubstringRoutes } from './substring-routes.js';

/**
 * Plain terms: both engines sort NULL as the smallest value (first ascending, last
 * descending, as design.md §7 promises), and any extra term such as `col IS NULL` would
 * keep the field's index from serving the order.
 */
export function orderFragment(order: readonly OrderTerm[], dialect: SqlDialect): Fragment {
  return {
    sql: order.map((t) => `${dialect.compared(t.field)} ${t.desc ? 'DESC' : 'ASC'}`).join(', '),
    bindings: order.map((t) => t.field.column),
  };
}

const totalCount: Fragment = Object.freeze({ sql: 'COUNT(*) AS ??', bindings: Object.freeze(['total']) });

/** What the page's statements take from the plan's order and projection alone. */
interface PageShape {
  /** The projection's columns, then the order's that it lacks. */
  readonly columns: readonly string[];
  readonly order: Fragment;
  readonly cursorColumns: readonly string[];
}

/**
 * Worked out once per dialect, order and projection: the planner hands every request of
 * the same OrderBy and Fields the same frozen arrays (plan-memo.ts), and a plan whose
 * arrays were built for it alone takes its entry away with it.
 */
const pageShapes = new WeakMap<SqlDialect, WeakMap<readonly OrderTerm[], WeakMap<readonly FieldSpec[], PageShape>>>();

function pageShapeOf(plan: QueryPlan, dialect: SqlDialect): PageShape {
  let byOrder = pageShapes.get(dialect);
  if (byOrder === undefined) pageShapes.set(dialect, (byOrder = new WeakMap()));
  let byProjection = byOrder.get(plan.order);
  if (byProjection === undefined) byOrder.set(plan.order, (byProjection = new WeakMap()));
  let shape = byProjection.get(plan.projection);
  if (shape === undefined) {
    const cursorColumns = Object.freeze(plan.order.map((t) => t.field.column));
    shape = Object.freeze({
      columns: Object.freeze([...new Set([...plan.projection.map((f) => f.column), ...cursorColumns])]),
      order: Object.freeze(orderFragment(plan.order, dialect)),
      cursorColumns,
    });
    byProjection.set(plan.projection, shape);
  }
  return shape;
}

/**
 * The plan's statements. `versioned`: tables whose versions the answer's first statement
 * (the page's, or the summary when Take is 0) reads beside its rows, for its entity tag.
 */
export function render(
  engine: Dialect,
  plan: QueryPlan,
  ctx: Pick<EngineContext, 'deferredJoinFrom' | 'estimateExactUpTo'>,
  routes: SubstringRoutes = noRoutes,
  versioned: readonly string[] = [],
): RenderedQuery {
  const dialect = sqlDialects[engine];
  const key: FieldSpec = plan.dto.fields.find((f) => f.name === plan.dto.primaryKey) ?? plan.dto.fields[0]!;
  const where = plan.conditions.map((c) => {
    const own = dialect.conditions[c.operator](dialect.compared(c.field), c.field.column, c.values.map((v) => dialect.bind(c.field, v)));
    const route = routes.get(c);
    if (route === undefined) return own;
    const candidates = substringFragment(route, c.field.substringIndex!, key.column);
    return route.exact ? candidates : bothOf(candidates, own);
  });
  // A lone condition the index decides alone: its count is the route's (substring-routes.ts).
  const [lone] = plan.conditions.length === 1 ? routes.values() : [];
  const knownTotal = lone?.exact ? lone.candidates : undefined;
  const select = (parts: Partial<SelectParts>): SelectParts => ({
    form: 'plain',
    table: plan.dto.table,
    columns: [],
    expressions: [],
    where,
    notNull: undefined,
    order: undefined,
    limit: undefined,
    offset: 0,
    key: undefined,
    outerOrder: undefined,
    ...parts,
  });
  const shape = pageShapeOf(plan, dialect);
  const page = plan.paging.take > 0 ? pageParts(plan, dialect, select, where, key, shape, ctx) : [];
  const versionsIn: 'page' | 'summary' | undefined = versioned.length === 0 ? undefined : page.length > 0 ? 'page' : 'summary';
  if (versionsIn === 'page') page[0] = { ...page[0]!, expressions: [...page[0]!.expressions, ...versionColumns(versioned)] };

  const expressions: Fragment[] = plan.total && knownTotal === undefined ? [totalCount] : [];
  const aggregates = plan.aggregates.map((aggregate, i) => {
    const sql = aggregateRenderers[aggregate.fn](aggregate, { order: plan.order, key, dialect });
    if (sql.kind === 'columns') {
      const aliases = sql.columns.map((_, j) => `a${i}_${j}`);
      sql.columns.forEach((c, j) => expressions.push({ sql: `${c.sql} AS ??`, bindings: [...c.bindings, aliases[j]!] }));
      return { aggregate, source: { kind: 'summary', aliases } as const };
    }
    const query = select({
      columns: [sql.field.column],
      notNull: sql.nonNull ? sql.field.column : undefined,
      order: orderFragment(sql.order, dialect),
      limit: 1,
    });
    return { aggregate, source: { kind: 'pick', query, column: sql.field.column } as const };
  });
  if (versionsIn === 'summary' && expressions.length > 0) expressions.push(...versionColumns(versioned));
  const summary = expressions.length > 0 ? select({ expressions }) : undefined;
  const versions = versionsIn === undefined || (versionsIn === 'summary' && summary === undefined) ? undefined : { tables: versioned, in: versionsIn };
  const estimate = plan.estimatedTotal && !(knownTotal !== undefined && knownTotal <= ctx.estimateExactUpTo)
    ? {
        capped: select({ form: 'countUpTo', limit: ctx.estimateExactUpTo + 1 }),
        engine: engineEstimates[dialect.name](plan, select({ columns: [key.column] })),
        sample: key.family === 'integer' ? sampleParts(key, where, dialect, select) : undefined,
      }
    : undefined;
  return { dialect, page, cursorColumns: shape.cursorColumns, summary, aggregates, estimate, knownTotal, versions };
}

/**
 * The key's ends, each one row of the key's own index (the order renderer's own terms), and
 * the filter's rows among given keys (the In operator's own renderer).
 */
function sampleParts(key: FieldSpec, where: readonly Fragment[], dialect: SqlDialect, select: (parts: Partial<SelectParts>) => SelectParts): SampleParts {
  const end = (desc: boolean) => select({ columns: [key.column], where: [], order: orderFragment([{ kind: 'order', field: key, desc }], dialect), limit: 1 });
  return {
    key: key.column,
    lowest: end(false),
    highest: end(true),
    matching: (keys) =>
      select({ expressions: [{ sql: 'COUNT(*) AS ??', bindings: ['n'] }], where: [...where, dialect.conditions.in(dialect.compared(key), key.column, keys)] }),
  };
}

/**
 * The page: the projection plus the order's columns (the `next` cursor is made of them),
 * one row past Take. After a cursor, one statement per keyset group; past
 * `deferredJoinFrom` skipped rows on MySQL, the keys first (SelectParts `deferred`): the
 * skipped rows are then index entries, not rows fetched from the clustered index.
 */
function pageParts(
  plan: QueryPlan,
  dialect: SqlDialect,
  select: (parts: Partial<SelectParts>) => SelectParts,
  where: readonly Fragment[],
  key: FieldSpec,
  shape: PageShape,
  ctx: Pick<EngineContext, 'deferredJoinFrom'>,
): SelectParts[] {
  const { skip, take } = plan.paging;
  const { columns, order } = shape;
  const limit = take + 1;
  if (plan.after !== undefined) {
    return keysetGroups(plan.order, plan.after.values, dialect).map((group) => {
      const terms = group.nullTerms.size === 0 ? plan.order : plan.order.filter((_, i) => !group.nullTerms.has(i));
      return select({ columns, where: [...where, group.where], order: orderFragment(terms, dialect), limit });
    });
  }
  if (dialect.name === 'mysql' && skip >= ctx.deferredJoinFrom) {
    const qualified = plan.order.map((t) => ({ ...t, field: { ...t.field, column: `${plan.dto.table}.${t.field.column}` } }));
    return [select({ form: 'deferred', columns, order, limit, offset: skip, key: key.column, outerOrder: orderFragment(qualified, dialect) })];
  }
  return [select({ columns, order, limit, offset: skip })];
}
