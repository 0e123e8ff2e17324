// What the HTTP edge hands an operation handler, and what it expects back. Handlers never
// see express: they get the validated request DTO and the caller, and return a body.
import type { Principal } from '../auth/roles.js';
import type { ApiError } from '../errors/api-error.js';

export interface OperationRequest {
  readonly operationId: string;
  /**
   * The request DTO: properties under their canonical camelCase names (`idIn`), already
   * merged from path, body and query, converted to their schema types and validated
   * against the operation's schema. Absent and null properties are missing.
   */
  readonly dto: Readonly<Record<string, unknown>>;
  /** Null for public operations. */
  readonly principal: Principal | null;
  /**
   * The caller named by a bearer token the request carries, for a public operation that
   * acts on it when sent (Authenticate with `provider: "logout"`): null without a token,
   * 401 for an invalid one. Verified only when asked.
   */
  bearer(): Principal | null;
  /** The client's address (behind TRUST_PROXY, the forwarded one): the rate limits' key. */
  readonly clientIp: string;
  /** The negotiated output format (csv only for operations that declare x-csv). */
  readonly format: 'json' | 'csv';
}

export interface CsvTable {
  readonly columns: readonly { readonly name: string; readonly family: 'integer' | 'string' | 'boolean' }[];
  readonly rows: readonly Readonly<Record<string, unknown>>[];
  /** Row property of each column, in column order. */
  readonly properties: readonly string[];
}

export interface OperationResponse {
  readonly status?: number;
  readonly body: unknown;
  /** Present when the operation can answer as CSV. */
  readonly csv?: CsvTable;
  readonly headers?: Readonly<Record<string, string>>;
}

export type OperationHandler = (request: OperationRequest) => Promise<OperationResponse>;

/** Thrown or returned by handlers; the edge renders it. */
export type HandlerError = ApiError;
