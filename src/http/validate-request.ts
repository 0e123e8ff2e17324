// The contract's check of every request: openapi-backend validates the request DTO against
// the operation's schema (lengths, counts, patterns, formats, ranges, required properties)
// with the validators it compiles from each operation's parameters and body, and every
// failure becomes a field error named after the spec's PascalCase property (design.md §3).
//
// ServiceStack's leniencies (names in any letter case, comma lists, a property in the
// query string of a POST) are settled before this stage: request-dto.ts builds the DTO, and
// the DTO is laid out here as the contract declares it (path, query, body) under the
// contract's own names. openapi-backend's validateRequest would parse the raw request again
// (cookies, headers, the query, the path template); its compiled validators are given the
// request as the DTO builder already read it.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { OpenAPIBackend } from 'openapi-backend';
import { pascal, type FieldError } from '../errors/api-error.js';
import type { FieldErrorCode } from '../errors/catalogue.js';
import { distinctFieldErrors } from '../errors/field-errors.js';
import type { Contract, OperationContract } from './contract.js';

/** The contract's field errors of a request DTO: none when it satisfies the operation's schema. */
export type DtoValidator = (dto: Readonly<Record<string, unknown>>) => readonly FieldError[];

type Json = Readonly<Record<string, unknown>>;

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
 * One validator per route of the contract. `api` compiles each operation's validators when
 * first asked (`quick`): a query operation's hundreds of parameters take 100-200 ms of CPU
 * to compile, all of them about a second, too long for the start. They compile in the
 * background a second after start, one per tick, so that an operation's first request does
 * not stall every request in flight; a request that comes earlier compiles its own. The
 * routes of one operation (its suffix and predefined variants) declare the same parameters
 * and body, so routes that also lay the DTO out alike share one compiled set: 12 sets serve
 * the 66 routes that have properties. A route without properties (Health) has nothing to
 * check.
 */
export function requestValidators(api: OpenAPIBackend, contract: Contract): ReadonlyMap<string, DtoValidator> {
  const compiledByShape = new Map<string, () => readonly ValidateFunction[]>();
  const validators = new Map<string, DtoValidator>();
  for (const [id, op] of contract.operations) {
    if (op.properties.size === 0) {
      validators.set(id, () => []);
      continue;
    }
    const shape = shapeOf(op);
    let compiled = compiledByShape.get(shape);
    if (compiled === undefined) {
      let functions: readonly ValidateFunction[] | undefined;
      compiled = () => (functions ??= api.validator.getRequestValidatorsForOperation(op.operationId) ?? []);
      compiledByShape.set(shape, compiled);
      warmUpLater(compiled);
    }
    validators.set(id, validatorOf(op, compiled));
  }
  return validators;
}

function validatorOf(op: OperationContract, compiled: () => readonly ValidateFunction[]): DtoValidator {
  const layOut = layout(op);
  return (dto) => {
    const request = layOut(dto);
    const errors: FieldError[] = [];
    for (const validate of compiled()) {
      if (!validate(request)) errors.push(...(validate.errors ?? []).filter((e) => e.keyword !== 'if').map(toFieldError));
    }
    return errors.length === 0 ? errors : distinctFieldErrors(errors);
  };
}

/** The operation a route belongs to, and where its DTO's properties go. */
function shapeOf(op: OperationContract): string {
  const places = [...op.properties.values()].map((p) => `${p.name}:${p.inPath ? 'p' : ''}${p.inQuery ? 'q' : ''}${p.inBody ? 'b' : ''}`);
  return `${op.canonicalId} ${op.acceptsBody && op.method !== 'get'} ${places.join(',')}`;
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

/**
 * `/requestBody/userName`, `/query/userName`, `/path/ImpiantoId`, or the parent of a missing
 * one. An empty string where the schema asks for a minimum length is a missing value, as
 * ServiceStack's NotEmpty rule has it.
 */
function toFieldError(e: ErrorObject): FieldError {
  const missing = e.keyword === 'required' ? String((e.params as { missingProperty?: string }).missingProperty ?? '') : undefined;
  const fieldName = pascal(e.instancePath.split('/')[2] ?? missing ?? '');
  const empty = e.keyword === 'minLength' && e.data === '';
  const schema = (missing === undefined ? e.parentSchema : ((e.parentSchema as Json | undefined)?.['properties'] as Record<string, Json> | undefined)?.[missing]) as Json | undefined;
  const template = messagesOf(schema)?.[empty ? 'required' : e.keyword];
  return {
    errorCode: empty ? 'NotEmpty' : codeOf(e),
    fieldName,
    message: template === undefined ? `${fieldName} ${e.message ?? 'is invalid'}` : filled(template, schema!, e.data),
  };
}

/**
 * A property schema may word its errors (`x-error-messages`, by keyword): `{maxLength}` and
 * the like stand for the schema's own bounds, `{count}` for the characters, items or
 * entries the value has.
 */
function messagesOf(schema: Json | undefined): Readonly<Record<string, string>> | undefined {
  const messages = schema?.['x-error-messages'];
  return typeof messages === 'object' && messages !== null ? (messages as Record<string, string>) : undefined;
}

function filled(template: string, schema: Json, data: unknown): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name === 'count' ? String(sizeOf(data)) : name in schema ? String(schema[name]) : whole));
}

/** Lengths count Unicode code points (design.md §1). */
function sizeOf(data: unknown): number {
  if (typeof data === 'string') return [...data].length;
  if (Array.isArray(data)) return data.length;
  return typeof data === 'object' && data !== null ? Object.keys(data).length : 0;
}

const int32Limits = new Set([-2147483648, 2147483647]);

/** A property schema may name its own code (`x-error-code: InvalidUserName`); otherwise by keyword. */
function codeOf(e: ErrorObject): FieldErrorCode {
  const parent = e.parentSchema as Json | undefined;
  const custom = parent?.['x-error-code'];
  if (typeof custom === 'string') return custom as FieldErrorCode;
  switch (e.keyword) {
    case 'maxLength':
    case 'minLength':
      return 'Length';
    case 'maxItems': {
      // An exact count (Between's two bounds) is a rule, not a limit.
      return parent?.['minItems'] === parent?.['maxItems'] ? 'InvalidValue' : 'TooMany';
    }
    case 'maxProperties':
      return 'TooMany';
    case 'required':
      return 'NotEmpty';
    case 'type':
      return 'InvalidType';
    // A number that is no int32, or an integer outside int32, is a type mismatch (design.md §3).
    case 'format':
      return (e.params as { format?: string }).format === 'int32' ? 'InvalidType' : 'InvalidValue';
    case 'minimum':
    case 'maximum':
      return parent?.['format'] === 'int32' && int32Limits.has((e.params as { limit?: number }).limit ?? 0) ? 'InvalidType' : 'InvalidValue';
    default:
      return 'InvalidValue';
  }
}
