import type { FieldSpec, FilterSpec, OperatorSpec, QueryDtoSpec, QueryLimits } from '../../src/query/catalog-types.js';
import type { FamilySchema, QueryInputs } from './validate-inputs.mjs';

export type { FieldSpec, FilterSpec, OperatorSpec, QueryDtoSpec, QueryLimits };
export interface Catalog {
  readonly operators: readonly OperatorSpec[];
  readonly limits: QueryLimits;
  readonly paging: { readonly takeMaximum: number };
  readonly families: Readonly<Record<string, FamilySchema>>;
  readonly queryDtos: readonly QueryDtoSpec[];
}
export declare function buildCatalog(inputs: QueryInputs): Catalog;
