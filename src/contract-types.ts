// What each operation of the contract takes and answers, as generated/api.d.ts types them:
// the one place those types are derived, so every floor that handles a DTO uses the same.
import type { operations } from '../generated/api.js';
import type { CanonicalOperationId } from '../generated/operations.js';

type Op<Id extends CanonicalOperationId> = operations[Id];
/** The edge's own parameters (negotiation): never part of a request DTO. */
type EdgeParameter = 'format' | 'callback' | '_';
type QueryOf<Id extends CanonicalOperationId> = Op<Id>['parameters'] extends { query?: infer Q } ? ([NonNullable<Q>] extends [never] ? object : Omit<NonNullable<Q>, EdgeParameter>) : object;
/** Path parameters are PascalCase in the seed's routes (`{ImpiantoId}`); the DTO is camelCase. */
type PathOf<Id extends CanonicalOperationId> = Op<Id>['parameters'] extends { path: infer P } ? { readonly [K in keyof P as Uncapitalize<K & string>]: P[K] } : object;
type BodyOf<Id extends CanonicalOperationId> = Op<Id> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : object;

/**
 * What the handler of `Id` receives: its path parameters, and the query and body
 * properties it declares, each possibly absent: a handler that reports the contract's field
 * errors itself (Register, the queries) runs before a missing required property is answered.
 */
export type RequestDto<Id extends CanonicalOperationId> = PathOf<Id> & Readonly<Partial<QueryOf<Id> & BodyOf<Id>>>;

/** The 200 JSON body the contract declares for `Id`. */
export type ResponseBody<Id extends CanonicalOperationId> = Op<Id>['responses'] extends { 200: { content: { 'application/json': infer R } } } ? R : never;
