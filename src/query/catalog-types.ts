// Shapes of the generated whitelist (generated/query-catalog.ts). The generator reads
// spec/query-operators.yaml and spec/query-dtos.yaml and emits data of these types;
// the planner and renderer accept only names found in it, so no identifier ever
// reaches SQL unless the spec's table lists it.

export type Family = 'integer' | 'string' | 'boolean';
export type Arity = 'one' | 'pair' | 'list';

/** Must list exactly the `kind`s of spec/query-operators.yaml (the generator checks). */
export const operatorKinds = ['eq', 'gte', 'gt', 'lt', 'lte', 'neq', 'startsWith', 'endsWith', 'contains', 'like', 'between', 'in'] as const;
export type OperatorKind = (typeof operatorKinds)[number];

export interface OperatorSpec {
  readonly kind: OperatorKind;
  /** Appended to the field name; '' for plain equality. */
  readonly suffix: string;
  readonly arity: Arity;
  readonly families: readonly Family[];
  /** What the operator does, as the contract's parameter descriptions say it. */
  readonly text: string;
}

export interface FieldSpec {
  /** The spec's PascalCase name: `OrdineVista`. */
  readonly name: string;
  /** The JSON (camelCase) name: `ordineVista`. */
  readonly property: string;
  readonly column: string;
  readonly family: Family;
  readonly nullable: boolean;
  /** The column's length, for string fields (spec/query-dtos.yaml). */
  readonly length?: number;
  /** The trigram table that serves Contains and EndsWith on this field (design.md §8, "Substring index"). */
  readonly substringIndex?: string;
}

export interface FilterSpec {
  /** PascalCase parameter name as field errors report it: `OrdineVistaBetween`. */
  readonly name: string;
  /** camelCase request property: `ordineVistaBetween`. */
  readonly property: string;
  /** PascalCase field name: `OrdineVista`. */
  readonly field: string;
  readonly operator: OperatorKind;
}

export interface QueryDtoSpec {
  /** Operation name as routed under /json/reply/: `CaratteristicaGruppoQuery`. */
  readonly operation: string;
  /** Record schema name: `CaratteristicaGruppo`. */
  readonly record: string;
  readonly table: string;
  /** PascalCase name of the primary-key field (the table's first field). */
  readonly primaryKey: string;
  readonly fields: readonly FieldSpec[];
  readonly filters: readonly FilterSpec[];
}

export interface QueryLimits {
  readonly inMaxItems: number;
  readonly stringMaxLength: number;
}
