// The rule stage: openapi-backend validates the request against the contract (lengths,
// counts, patterns, formats, ranges, required properties) with the validators it compiles
// from each operation's parameters and body, and every failure becomes a field error named
// after the spec's PascalCase property (design.md §3).
//
// ServiceStack's leniencies (names in any letter case, comma lists, JSV, a property in the
// query string of a POST) are settled before this stage: request-dto.ts builds the DTO, and
// the DTO is laid out here as the contract declares it (path, query, body) under the
// contract's own names. openapi-backend's validateRequest would parse the raw request again
// (cookies, headers, the query, the path template); its compiled validators are given the
// request as the DTO builder already read it.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { OpenAPIBackend } from 'openapi-backend';
import { ApiError, pascal, type FieldError, type Result, ok, fail } from '../errors/api-error.js';
import type { FieldErrorCode } from '../errors/catalogue.js';
import type { OperationContract } from './contract.js';

export type DtoValidator = (dto: Readonly<Record<string, unknown>>) => Result<Readonly<Record<string, unknown>>>;

/** The request as openapi-backend's validators read it. */
interface Parameters {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  cookie: Record<string, unknown>;
  requestBody?: Record<string, unknown>;
}

/** Validators not compiled yet, compiled one per timer tick once start-up is over. */
const pending: Array<() => unknown> = [];
const warmUpDelayMs = 1000;

function warmUpLater(compile: () => unknown): void {
  if (pending.push(compile) > 1) return;
  const next = (): void => {
    pending.shift()?.();
    if (pending.length > 0) setTimeout(next, 0).unref();
  };
  setTimeout(next, warmUpDelayMs).unref();
}

/**
 * `api` was built with validation on and lazily compiled validators (`quick`): compiling
 * every operation at start-up took about half a second of the service's start, most of it
 * for operations whose handlers validate for themselves (Register, the queries) and never
 * call this. The others compile in the background a second after start, one per tick
 * (20-80 ms each), so that an operation's first request does not stall every request in
 * flight; a request that comes earlier compiles its own. An operation without properties
 * (Health, Ready) has nothing to check.
 */
export function requestValidator(api: OpenAPIBackend, op: OperationContract): DtoValidator {
  if (op.properties.size === 0) return (dto) => ok(dto);
  let validators: readonly ValidateFunction[] | undefined;
  const compiled = (): readonly ValidateFunction[] => (validators ??= api.validator.getRequestValidatorsForOperation(op.operationId) ?? []);
  if (!op.validatedByHandler) warmUpLater(compiled);
  const layOut = layout(op);
  return (dto) => {
    const request = layOut(dto);
    const errors: FieldError[] = [];
    for (const validate of compiled()) {
      if (!validate(request)) errors.push(...(validate.errors ?? []).filter((e) => e.keyword !== 'if').map(toFieldError));
    }
    const listed = dedupe(errors);
    return listed.length > 0 ? fail(ApiError.validation(listed)) : ok(dto);
  };
}

/** Places each DTO property where the operation declares it, under the contract's name. */
function layout(op: OperationContract): (dto: Readonly<Record<string, unknown>>) => Parameters {
  const withBody = op.acceptsBody && op.method !== 'get';
  return (dto) => {
    const request: Parameters = { path: {}, query: {}, header: {}, cookie: {}, ...(withBody ? { requestBody: {} } : {}) };
    for (const [name, value] of Object.entries(dto)) {
      const property = op.properties.get(name);
      if (property === undefined) continue;
      if (withBody && property.inBody) request.requestBody![name] = value;
      else if (property.inPath) request.path[property.paramName!] = value;
      else request.query[property.paramName ?? name] = value;
    }
    return request;
  };
}

/** `/requestBody/userName`, `/query/userName`, `/path/ImpiantoId`, or the parent of a missing one. */
function toFieldError(e: ErrorObject): FieldError {
  const property = e.instancePath.split('/')[2] ?? String((e.params as { missingProperty?: string }).missingProperty ?? '');
  const fieldName = pascal(property);
  return { errorCode: codeOf(e), fieldName, message: `${fieldName} ${e.message ?? 'is invalid'}` };
}

/** A property schema may name its own code (`x-error-code: InvalidUserName`); otherwise by keyword. */
function codeOf(e: ErrorObject): FieldErrorCode {
  const custom = (e.parentSchema as Record<string, unknown> | undefined)?.['x-error-code'];
  if (typeof custom === 'string') return custom as FieldErrorCode;
  switch (e.keyword) {
    case 'maxLength':
    case 'minLength':
      return 'Length';
    case 'maxItems': {
      // An exact count (Between's two bounds) is a rule, not a limit.
      const s = e.parentSchema as { minItems?: number; maxItems?: number } | undefined;
      return s?.minItems === s?.maxItems ? 'InvalidValue' : 'TooMany';
    }
    case 'maxProperties':
      return 'TooMany';
    case 'required':
      return 'NotEmpty';
    case 'type':
      return 'InvalidType';
    default:
      return 'InvalidValue';
  }
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.fieldName}\u0000${e.errorCode}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
