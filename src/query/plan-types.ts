// The resolved, typed query: readonly plain data tagged by `kind`. The renderer sees
// only these nodes, never names as the caller wrote them, so no identifier reaches
// SQL unless the catalog lists it.
import type { FieldSpec, OperatorKind, QueryDtoSpec } from './catalog-types.js';

/** A filter value after type checking: int32, string (<= limit) or boolean. */
export type Scalar = number | string | boolean;

export interface Condition {
  readonly kind: 'condition';
  readonly field: FieldSpec;
  readonly operator: OperatorKind;
  /** One value for arity `one`, two for `pair`, 0..inMaxItems for `list`. */
  readonly values: readonly Scalar[];
}

export interface Paging {
  readonly kind: 'paging';
  readonly skip: number;
  readonly take: number;
}

/**
 * Where a page starts under `After`: the sort values of the row before it, one per order
 * term (the key last), as the row held them (booleans as 0/1).
 */
export interface Keyset {
  readonly kind: 'keyset';
  readonly values: readonly (number | string | null)[];
}

export interface OrderTerm {
  readonly kind: 'order';
  readonly field: FieldSpec;
  readonly desc: boolean;
}

/** `count` without a field is COUNT(*); `first`/`last` follow the query's full order. */
export const aggregateFns = ['count', 'countDistinct', 'min', 'max', 'first', 'last', 'sum', 'avg'] as const;
export type AggregateFn = (typeof aggregateFns)[number];

export interface Aggregate {
  readonly kind: 'aggregate';
  readonly fn: AggregateFn;
  readonly field: FieldSpec | undefined;
  /** The meta key: the alias, or the item as written (trimmed). */
  readonly key: string;
}

export interface QueryPlan {
  readonly kind: 'plan';
  readonly dto: QueryDtoSpec;
  readonly conditions: readonly Condition[];
  readonly paging: Paging;
  /** Always closed by the primary key, in the direction of the last term, so paging is stable. */
  readonly order: readonly OrderTerm[];
  /** The page starts after this row (`After`); Skip is then 0. */
  readonly after: Keyset | undefined;
  /** The selected fields, in Fields order or else the spec's order. */
  readonly projection: readonly FieldSpec[];
  readonly total: boolean;
  /** `Include=EstimatedTotal`: a count that stays cheap on any filter. */
  readonly estimatedTotal: boolean;
  readonly aggregates: readonly Aggregate[];
}
