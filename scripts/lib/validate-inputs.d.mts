import type { CatalogVocabulary } from './catalog-types-source.mjs';

export interface FamilySchema {
  readonly type: 'integer' | 'string' | 'boolean';
  readonly [key: string]: unknown;
}
export interface OperatorRow {
  readonly kind: string;
  readonly suffix: string;
  readonly arity: 'one' | 'pair' | 'list';
  readonly families: readonly string[];
}
export interface FieldRow {
  readonly name: string;
  readonly column: string;
  readonly family: string;
  readonly nullable: boolean;
}
export interface DtoRow {
  readonly operation: string;
  readonly record: string;
  readonly table: string;
  readonly fields: readonly FieldRow[];
}
export interface QueryInputs {
  readonly families: Readonly<Record<string, FamilySchema>>;
  readonly limits: { readonly inMaxItems: number; readonly stringMaxLength: number; readonly takeMaximum: number };
  readonly operators: readonly OperatorRow[];
  readonly dtos: readonly DtoRow[];
}
export declare const shapingProperties: readonly string[];
/** Throws a SpecError listing every problem. Arguments are the parsed YAML documents. */
export declare function validateInputs(operatorTable: unknown, dtoTable: unknown, vocabulary: CatalogVocabulary): QueryInputs;
