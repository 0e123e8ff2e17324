import type { Catalog, FilterSpec, QueryDtoSpec } from './query-catalog.mjs';

export type JsonSchema = Record<string, unknown>;
export interface QueryParameter {
  readonly name: string;
  readonly in: 'query';
  readonly description: string;
  readonly schema: JsonSchema;
  readonly style?: 'form';
  readonly explode?: boolean;
}
export declare function valueSchema(family: string, catalog: Catalog): JsonSchema;
export declare function filterSchema(filter: FilterSpec, dto: QueryDtoSpec, catalog: Catalog): JsonSchema;
export declare function shapingSchemas(dto: QueryDtoSpec, catalog: Catalog): Record<string, JsonSchema>;
export declare function requestSchema(dto: QueryDtoSpec, catalog: Catalog): JsonSchema & { properties: Record<string, JsonSchema> };
export declare function recordSchema(dto: QueryDtoSpec, catalog: Catalog): JsonSchema & { properties: Record<string, JsonSchema> };
export declare function responseSchema(dto: QueryDtoSpec): JsonSchema;
export declare function queryParameters(dto: QueryDtoSpec, catalog: Catalog): QueryParameter[];
export declare function parametersOf(request: JsonSchema & { properties: Record<string, JsonSchema> }, schemaName: string, holder?: (property: string) => string): QueryParameter[];
