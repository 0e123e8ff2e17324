// Stage 3 of the engine: the plan -> Knex queries. The only module (with execute.ts)
// that builds SQL. Identifiers come from the plan's catalog entries and are bound with
// `??`; every value is a `?` parameter.
import type { Knex } from 'knex';
import { dialectOf } from '../db/dialect.js';
import type { FieldSpec } from './catalog-types.js';
import type { Aggregate, OrderTerm, QueryPlan } from './plan-types.js';
import { aggregateRenderers } from './render-aggregates.js';
import type { Fragment } from './render-conditions.js';
import { sqlDialects, type SqlDialect } from './sql-dialect.js';

export type AggregateSource =
  | { readonly kind: 'summary'; readonly aliases: readonly string[] }
  | { readonly kind: 'pick'; readonly query: Knex.QueryBuilder; readonly column: string };

export interface RenderedQuery {
  readonly dialect: SqlDialect;
  /** Absent when Take is 0: no rows are asked for. */
  readonly page: Knex.QueryBuilder | undefined;
  /** COUNT(*) AS total and the aggregates computed in one pass; absent when neither is asked. */
  readonly summary: Knex.QueryBuilder | undefined;
  readonly aggregates: readonly { readonly aggregate: Aggregate; readonly source: AggregateSource }[];
}

/**
 * NULLs first ascending, last descending, spelled out so that both engines agree
 * whatever their default: `(col IS NULL) DESC` puts NULL rows first. Only for nullable
 * fields, so the others can still be sorted through their index.
 */
export function orderFragment(order: readonly OrderTerm[], dialect: SqlDialect): Fragment {
  const parts: string[] = [];
  const bindings: string[] = [];
  for (const t of order) {
    if (t.field.nullable) {
      parts.push(`?? IS NULL ${t.desc ? 'ASC' : 'DESC'}`);
      bindings.push(t.field.column);
    }
    parts.push(`${dialect.compared(t.field)} ${t.desc ? 'DESC' : 'ASC'}`);
    bindings.push(t.field.column);
  }
  return { sql: parts.join(', '), bindings };
}

export function render(db: Knex, plan: QueryPlan): RenderedQuery {
  const dialect = sqlDialects[dialectOf(db)];
  const filtered = (): Knex.QueryBuilder => {
    const q = db(plan.dto.table);
    for (const c of plan.conditions) {
      const f = dialect.conditions[c.operator](dialect.compared(c.field), c.field.column, c.values.map((v) => dialect.bind(c.field, v)));
      q.whereRaw(f.sql, [...f.bindings]);
    }
    return q;
  };
  const ordered = (q: Knex.QueryBuilder, order: readonly OrderTerm[]) => {
    const f = orderFragment(order, dialect);
    return q.orderByRaw(f.sql, [...f.bindings]);
  };

  const { skip, take } = plan.paging;
  const page = take > 0 ? ordered(filtered().select(plan.projection.map((f) => f.column)), plan.order).limit(take).offset(skip) : undefined;

  const key: FieldSpec = plan.dto.fields.find((f) => f.name === plan.dto.primaryKey) ?? plan.dto.fields[0]!;
  const selects: Knex.Raw[] = plan.total ? [db.raw('COUNT(*) AS ??', ['total'])] : [];
  const aggregates = plan.aggregates.map((aggregate, i) => {
    const sql = aggregateRenderers[aggregate.fn](aggregate, { order: plan.order, key, dialect });
    if (sql.kind === 'columns') {
      const aliases = sql.columns.map((_, j) => `a${i}_${j}`);
      sql.columns.forEach((c, j) => selects.push(db.raw(`${c.sql} AS ??`, [...c.bindings, aliases[j]!])));
      return { aggregate, source: { kind: 'summary', aliases } as const };
    }
    const q = filtered().select(sql.field.column);
    if (sql.nonNull) q.whereNotNull(sql.field.column);
    return { aggregate, source: { kind: 'pick', query: ordered(q, sql.order).limit(1), column: sql.field.column } as const };
  });
  const summary = selects.length > 0 ? filtered().select(selects) : undefined;
  return { dialect, page, summary, aggregates };
}
