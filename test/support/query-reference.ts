// A small reference evaluator for the differential test: the plan's semantics (design.md
// §7) in plain JS over in-memory rows, using the same fold() as the engine's SQLite side.
import { fold } from '../../src/db/fold.js';
import type { FieldSpec, OperatorKind } from '../../src/query/catalog-types.js';
import type { QueryResponse } from '../../src/query/execute.js';
import { formatAverage } from '../../src/query/format-values.js';
import type { Aggregate, AggregateFn, Condition, OrderTerm, QueryPlan, Scalar } from '../../src/query/plan-types.js';

export type Row = Readonly<Record<string, number | string | boolean | null>>;
type Value = number | string | boolean;

/** Comparable form: folded strings, booleans as 0/1. */
const key = (v: Value): number | string => (typeof v === 'string' ? fold(v) : typeof v === 'boolean' ? Number(v) : v);
const cmp = (a: Value, b: Value): number => {
  const x = key(a), y = key(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** A LIKE pattern as an anchored regex: % any run, _ one code point, \ escapes. */
function likeRegex(pattern: string): RegExp {
  let re = '';
  const chars = [...fold(pattern)];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\') re += chars[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (c === '%') re += '.*';
    else if (c === '_') re += '.';
    else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'su');
}

const matchers: Record<OperatorKind, (v: Value, vals: readonly Scalar[]) => boolean> = {
  eq: (v, [a]) => cmp(v, a!) === 0,
  gte: (v, [a]) => cmp(v, a!) >= 0,
  gt: (v, [a]) => cmp(v, a!) > 0,
  lt: (v, [a]) => cmp(v, a!) < 0,
  lte: (v, [a]) => cmp(v, a!) <= 0,
  neq: (v, [a]) => cmp(v, a!) !== 0,
  startsWith: (v, [a]) => fold(String(v)).startsWith(fold(String(a))),
  endsWith: (v, [a]) => fold(String(v)).endsWith(fold(String(a))),
  contains: (v, [a]) => fold(String(v)).includes(fold(String(a))),
  like: (v, [a]) => likeRegex(String(a)).test(fold(String(v))),
  between: (v, [lo, hi]) => cmp(v, lo!) >= 0 && cmp(v, hi!) <= 0,
  in: (v, vals) => vals.some((a) => cmp(v, a) === 0),
};

const matches = (row: Row, c: Condition) => {
  const v = row[c.field.column];
  return v !== null && v !== undefined && matchers[c.operator](v, c.values);
};

export function sorter(order: readonly OrderTerm[]) {
  return (a: Row, b: Row): number => {
    for (const t of order) {
      const x = a[t.field.column] ?? null, y = b[t.field.column] ?? null;
      const c = x === null || y === null ? Number(y === null) - Number(x === null) : cmp(x, y);
      if (c !== 0) return t.desc ? -c : c;
    }
    return 0;
  };
}

const text = (v: Value | null | undefined): string | undefined =>
  v === null || v === undefined ? undefined : typeof v === 'boolean' ? String(v) : String(v);

function aggregate(a: Aggregate, rows: readonly Row[], order: readonly OrderTerm[], keyField: FieldSpec): string | undefined {
  const f = a.field;
  const present = f ? rows.map((r) => r[f.column]).filter((v): v is Value => v !== null && v !== undefined) : [];
  const byValue = (desc: boolean) =>
    [...rows].filter((r) => r[f!.column] !== null).sort(sorter([{ kind: 'order', field: { ...f!, nullable: false }, desc }, { kind: 'order', field: keyField, desc: false }]))[0]?.[f!.column];
  const sorted = () => [...rows].sort(sorter(order));
  const sum = () => present.reduce<bigint>((s, v) => s + BigInt(v as number), 0n);
  const fns: Record<AggregateFn, () => string | undefined> = {
    count: () => String(f ? present.length : rows.length),
    countDistinct: () => String(new Set(present.map(key)).size),
    min: () => text(byValue(false)),
    max: () => text(byValue(true)),
    first: () => text(sorted()[0]?.[f!.column]),
    last: () => text(sorted().at(-1)?.[f!.column]),
    sum: () => (present.length ? sum().toString() : undefined),
    avg: () => (present.length ? formatAverage(sum(), BigInt(present.length)) : undefined),
  };
  return fns[a.fn]();
}

export function evaluate(plan: QueryPlan, table: readonly Row[]): QueryResponse {
  const rows = table.filter((r) => plan.conditions.every((c) => matches(r, c)));
  const page = [...rows].sort(sorter(plan.order)).slice(plan.paging.skip, plan.paging.skip + plan.paging.take);
  const results = page.map((r) =>
    Object.fromEntries(plan.projection.flatMap((f) => { const v = r[f.column]; return v === null || v === undefined ? [] : [[f.property, v] as const]; })),
  );
  const keyField = plan.dto.fields.find((f) => f.name === plan.dto.primaryKey)!;
  const meta: Record<string, string> = {};
  for (const a of plan.aggregates) {
    const v = aggregate(a, rows, plan.order, keyField);
    if (v !== undefined) meta[a.key] = v;
  }
  return {
    offset: plan.paging.skip,
    ...(plan.total ? { total: rows.length } : {}),
    results,
    // `next` is opaque: the reference says only that a further page exists.
    ...(plan.paging.take > 0 && plan.paging.skip + plan.paging.take < rows.length ? { next: 'more' } : {}),
    ...(Object.keys(meta).length ? { meta } : {}),
  };
}
