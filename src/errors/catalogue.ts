// The one catalogue of error codes and the HTTP status each maps to (design.md §3).
// Field-error codes are listed separately: they only appear inside `errors[]`
// and, for validation failures, lift the first one to the top level with status 400.

export const statusOfCode = {
  SerializationException: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  TooManyRequests: 429,
  InternalServerError: 500,
  ServiceUnavailable: 503,
  QueryTimeout: 503,
} as const;

export type TopLevelCode = keyof typeof statusOfCode;

export const fieldErrorCodes = [
  'NotEmpty',
  'Email',
  'Length',
  'InvalidUserName',
  'PasswordsShouldMatch',
  'InvalidType',
  'InvalidValue',
  'UnknownField',
  'TooMany',
] as const;

export type FieldErrorCode = (typeof fieldErrorCodes)[number];

export type ErrorCode = TopLevelCode | FieldErrorCode;

export function statusOf(code: ErrorCode): number {
  return (statusOfCode as Record<string, number>)[code] ?? 400;
}
