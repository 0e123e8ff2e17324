// What the HTTP edge hands an operation handler, and what it expects back. Handlers never
// see express: they get the validated request DTO and the caller, and return a body.
import type { RequestDto, ResponseBody } from '../contract-types.js';
import type { CanonicalOperationId } from '../../generated/operations.js';
import type { Principal } from '../auth/roles.js';
import { ApiError, type FieldError } from '../errors/api-error.js';

export interface OperationRequest {
  readonly operationId: string;
  /**
   * The request DTO: properties under their canonical camelCase names (`idIn`), already
   * merged from path, body and query, converted to their schema types and validated
   * against the operation's schema. Absent and null properties are missing.
   */
  readonly dto: Readonly<Record<string, unknown>>;
  /**
   * The contract's field errors of `dto` (validate-request.ts). Always empty for a handler
   * that does not report them itself: the edge answers 400 before calling it. A handler
   * marked by `reportingFieldErrors` runs with them and answers them together with its
   * own rules' errors (design.md §3).
   */
  readonly fieldErrors: readonly FieldError[];
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
  /**
   * For a GET or HEAD: this request's absolute URL with `after` set and `skip` dropped, the
   * target of its `Link: rel="next"` (design.md §7); undefined for other methods.
   */
  nextPageUrl(after: string): string | undefined;
  /** The negotiated output format (csv only for operations that declare x-csv; csv or jsonl for exports). */
  readonly format: 'json' | 'csv' | 'jsonl';
  /**
   * Headers every answer to this request carries from now on, success or failure: the
   * RateLimit fields of a limit the request has been counted against (design.md §4).
   */
  announce(headers: Readonly<Record<string, string>>): void;
  /** What an entity tag needs of the exchange (design.md §7); absent where nothing is tagged (tests). */
  readonly conditional?: Conditional;
}

export interface Conditional {
  /** The If-None-Match of a GET or HEAD as sent; undefined without one, and for other methods, which answer 200 whatever it says. */
  readonly ifNoneMatch: string | undefined;
  /** The representation negotiated besides the data: `json`, `csv`, or `jsonp:<callback>`. */
  readonly representation: string;
}

/** 304: the answer the client holds is current (RFC 9110 §15.4.5); headers only, no body. */
export interface NotModified {
  readonly status: 304;
  readonly notModified: true;
  readonly headers: Readonly<Record<string, string>>;
  // Absent, so that an answer's optional parts read the same on either kind of answer.
  readonly body?: undefined;
  readonly csv?: undefined;
  readonly nullFree?: undefined;
  readonly stream?: undefined;
}

export interface CsvTable {
  readonly columns: readonly { readonly name: string; readonly family: 'integer' | 'string' | 'boolean' }[];
  readonly rows: readonly Readonly<Record<string, unknown>>[];
  /** Row property of each column, in column order. */
  readonly properties: readonly string[];
}

/**
 * Where a streamed answer writes (respond-stream.ts): nothing is sent before `start`, so
 * whatever fails before it is answered as any failure is (design.md §3).
 */
export interface BodySink {
  /** A HEAD request: `start` then `end`, and no body. */
  readonly head: boolean;
  /** Aborted once the client is gone. */
  readonly signal: AbortSignal;
  readonly started: boolean;
  /** Sends 200 with these headers; the body follows in chunks. */
  start(contentType: string, headers: Readonly<Record<string, string>>): void;
  /**
   * Writes a chunk. Undefined when the socket takes more at once; otherwise a promise that
   * resolves once it drains, or rejects once the client is gone.
   */
  write(chunk: string): Promise<void> | undefined;
  /** Ends the answer; `complete: false` leaves HTTP's last chunk unsent, so every client sees the body cut short. */
  end(complete: boolean): void;
}

/** An answer written as it is read (the exports, design.md §7). */
export interface StreamedAnswer {
  run(sink: BodySink): Promise<void>;
}

export interface OperationResponse {
  readonly status?: number;
  /** Absent only with `stream`. */
  readonly body?: unknown;
  /** Present for a streamed answer, which the edge runs instead of writing `body`. */
  readonly stream?: StreamedAnswer;
  /** Present when the request negotiated CSV (and the operation can answer it). */
  readonly csv?: CsvTable;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The body holds no null anywhere (the query engine leaves NULL columns out as it builds
   * records), so the writer need not look for nulls to drop (design.md §1).
   */
  readonly nullFree?: boolean;
}

export type OperationHandler = (request: OperationRequest) => Promise<OperationResponse | NotModified>;

/** Thrown or returned by handlers; the edge renders it. */
export type HandlerError = ApiError;

// ---- Handlers typed from the contract (generated/api.d.ts) ------------------------------
// A handler's request DTO and answer body are the operation's own types, so a spec edit the
// code does not follow fails tsc in the handler that must change (design.md §0).

export type { RequestDto, ResponseBody } from '../contract-types.js';

// Type aliases, not interfaces: two operations with the same types (Register and its PUT
// twin) then share one handler, compared by structure rather than by operation id.
export type Request<Id extends CanonicalOperationId> = Omit<OperationRequest, 'dto'> & { readonly dto: RequestDto<Id> };

/** An operation whose 200 has no JSON body (an export) answers a stream; a tagged one may answer 304. */
export type Response<Id extends CanonicalOperationId> = [ResponseBody<Id>] extends [never]
  ? Omit<OperationResponse, 'body' | 'stream'> & { readonly body?: undefined; readonly stream: StreamedAnswer }
  : (Omit<OperationResponse, 'body'> & { readonly body: ResponseBody<Id> }) | NotModified;

/**
 * One handler per operation of the contract: a missing one fails tsc (and start-up). A
 * handler's type is `HandlerMap['Register']`: a plain function type, so operations with the
 * same types (Register and its PUT twin) can share one handler.
 */
export type HandlerMap = { readonly [Id in CanonicalOperationId]: (request: Request<Id>) => Promise<Response<Id>> };

/**
 * Takes what a handler reads from its DTO apart from the rest, which must be empty: a
 * property the contract adds fails tsc here until the handler reads it or says it is ignored.
 */
export function everyPropertyRead<T extends Readonly<Record<string, never>>>(rest: T): void {
  void rest;
}


const reporting = new WeakSet<object>();

/**
 * Marks a handler that checks rules a schema cannot say (passwords that must match, a
 * cursor's signature) and reports the contract's field errors (`request.fieldErrors`)
 * together with its own, all at once, after whatever it checks first (Register's rate
 * limit). Every other handler runs only on a request that satisfies the contract.
 */
export function reportingFieldErrors<H extends (request: never) => Promise<unknown>>(handler: H): H {
  reporting.add(handler);
  return handler;
}

/**
 * Calls the handler of `id` with the request the edge built: the one place where a DTO that
 * the edge converted and validated against the operation's schema takes the operation's type.
 * A request the contract refuses is answered here, unless the handler reports it itself.
 */
export function callHandler<Id extends CanonicalOperationId>(handlers: HandlerMap, id: Id, request: OperationRequest): Promise<Response<Id>> {
  const handler: (request: Request<Id>) => Promise<Response<Id>> = handlers[id];
  if (request.fieldErrors.length > 0 && !reporting.has(handler)) return Promise.reject(ApiError.validation(request.fieldErrors));
  return handler(request as Request<Id>);
}
