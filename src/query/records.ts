// The types of what the engine answers, derived from a catalog entry (generated/query-catalog.ts):
// a field of family `integer` is a number in its record, and so on. The handlers compare
// them with the contract's record and response types, so the two cannot drift apart.
import type { Family, QueryDtoSpec } from './catalog-types.js';
import type { EstimateKind } from './estimate.js';

/** The response value of each family, as format-values.ts produces it. */
export interface FamilyValues {
  readonly integer: number;
  readonly string: string;
  readonly boolean: boolean;
}

/** A record of `D`: each field under its property, absent when not selected or NULL (design.md §1). */
export type RecordOf<D extends QueryDtoSpec> = { [F in D['fields'][number] as F['property']]?: FamilyValues[F['family']] };

/** A record of any DTO, as the engine's stages see it. */
export type QueryRecord = RecordOf<QueryDtoSpec>;

/** design.md §7: the answer of a query operation, whose records are `R`. */
export interface QueryResponse<R = QueryRecord> {
  readonly offset: number;
  readonly total?: number;
  readonly estimatedTotal?: number;
  readonly estimatedTotalKind?: EstimateKind;
  readonly results: R[];
  readonly next?: string;
  readonly meta?: Readonly<Record<string, string>>;
}

/** The value type of a family, for converters keyed by family. */
export type FamilyValue<F extends Family = Family> = FamilyValues[F];
