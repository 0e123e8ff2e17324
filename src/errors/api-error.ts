// The single error value of the service. Everything that can fail produces one
// of these (engine passes return it inside a Result; handlers may throw it), and
// one function at the edge turns it into the ResponseStatus envelope.
import { statusOf, type ErrorCode, type FieldErrorCode, type TopLevelCode } from './catalogue.js';

export interface FieldError {
  readonly errorCode: FieldErrorCode | 'AlreadyExists';
  /** The spec's PascalCase name (`IdIn`, `UserName`), or the name as sent when the spec lacks it. */
  readonly fieldName: string;
  readonly message: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: readonly FieldError[];
  /** Extra response headers the failure implies (Allow, Retry-After, WWW-Authenticate). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, errors: readonly FieldError[] = [], headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = statusOf(code);
    this.errors = errors;
    this.headers = headers;
  }

  /** A validation failure: the first field error sets the top-level code and message (ServiceStack ValidationFeature). */
  static validation(errors: readonly FieldError[]): ApiError {
    const first = errors[0];
    if (!first) throw new TypeError('ApiError.validation needs at least one field error');
    // The status comes from the catalogue like any other: 400 for the field codes, 409 for a
    // uniqueness conflict (design.md §5), which is reported as a field error naming the field.
    return new ApiError(first.errorCode, first.message, errors);
  }

  static field(errorCode: FieldErrorCode, fieldName: string, message: string): ApiError {
    return ApiError.validation([{ errorCode, fieldName, message }]);
  }

  static of(code: TopLevelCode, message: string, headers: Record<string, string> = {}): ApiError {
    return new ApiError(code, message, [], headers);
  }
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ApiError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(error: ApiError): Result<T> => ({ ok: false, error });

/** Gathers field errors from several passes so that every failure is reported, not just the first. */
export function collect<T>(results: readonly Result<T>[]): Result<T[]> {
  const errors: FieldError[] = [];
  const values: T[] = [];
  for (const r of results) {
    if (r.ok) values.push(r.value);
    else if (r.error.errors.length > 0) errors.push(...r.error.errors);
    else return fail(r.error);
  }
  return errors.length > 0 ? fail(ApiError.validation(errors)) : ok(values);
}

/** PascalCase name of a camelCase property, as field errors report it. */
export const pascal = (name: string): string => (name ? name[0]!.toUpperCase() + name.slice(1) : name);
