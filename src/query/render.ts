// Stage 3 of the engine: the plan -> the SELECTs that answer it, as data (select-parts.ts)
// that statements.ts turns into SQL text through Knex. The only module (with
// statements.ts) that builds SQL. Identifiers come from the plan's catalog entries and are
// bound with `??`; every value is a `?` parameter.
import type { Knex } from 'knex';
import { dialectOf } from '../db/dialect.js';
import type { FieldSpec } from './catalog-types.js';
import type { OrderTerm, QueryPlan } from './plan-types.js';
import { aggregateRenderers } from './render-aggregates.js';
import type { Fragment } from './render-conditions.js';
import type { RenderedQuery, SelectParts } from './select-parts.js';
import { sqlDialects, type SqlDialect } from './sql-dialect.js';

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
  const where = plan.conditions.map((c) =>
    dialect.conditions[c.operator](dialect.compared(c.field), c.field.column, c.values.map((v) => dialect.bind(c.field, v))),
  );
  const select = (parts: Partial<SelectParts>): SelectParts => ({
    table: plan.dto.table,
    columns: [],
    expressions: [],
    where,
    notNull: undefined,
    order: undefined,
    limit: undefined,
    offset: 0,
    ...parts,
  });

  const { skip, take } = plan.paging;
  const page = take > 0
    ? select({ columns: plan.projection.map((f) => f.column), order: orderFragment(plan.order, dialect), limit: take, offset: skip })
    : undefined;

  const key: FieldSpec = plan.dto.fields.find((f) => f.name === plan.dto.primaryKey) ?? plan.dto.fields[0]!;
  const expressions: Fragment[] = plan.total ? [{ sql: 'COUNT(*) AS ??', bindings: ['total'] }] : [];
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
  const summary = expressions.length > 0 ? select({ expressions }) : undefined;
  return { dialect, page, summary, aggregates };
}
