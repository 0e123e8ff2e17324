// The rule stage: checks a well-typed DTO against the operation's schema with ajv
// (lengths, counts, patterns, formats, ranges) and maps every failure to a field
// error named after the spec's PascalCase property (design.md §3).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import { ApiError, pascal, type FieldError, type Result, ok, fail } from '../errors/api-error.js';
import type { FieldErrorCode } from '../errors/catalogue.js';
import type { OperationContract } from './contract.js';

// ajv-formats is CommonJS whose default export arrives under `.default` in ESM.
const addFormats = (ajvFormats as unknown as { default: ajvFormats.FormatsPlugin }).default;

export type DtoValidator = (dto: Readonly<Record<string, unknown>>) => Result<Readonly<Record<string, unknown>>>;

let shared: Ajv | undefined;

/** One Ajv for every operation: each new instance compiles the JSON Schema meta-schema again (~70 ms). */
function ajvInstance(): Ajv {
  if (!shared) {
    shared = new Ajv({ allErrors: true, strict: false, verbose: true });
    addFormats(shared);
  }
  return shared;
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
 * Not compiled at start-up: compiling every operation's schema took about half a second
 * of the service's start (scripts/bench, --cpu-prof), most of it for operations whose
 * handlers validate for themselves (Register, the queries) and never call this. The others
 * compile in the background a second after start, one per tick (20-80 ms each), so that
 * an operation's first request does not stall every request in flight; a request that
 * comes earlier compiles its own. An operation without properties (Health, Ready) has
 * nothing to check.
 */
export function compileValidator(op: OperationContract): DtoValidator {
  if (op.properties.size === 0) return (dto) => ok(dto);
  let validate: ValidateFunction | undefined;
  const compiled = (): ValidateFunction => {
    if (validate) return validate;
    const ajv = ajvInstance();
    const schema = {
      type: 'object',
      properties: Object.fromEntries([...op.properties.values()].map((p) => [p.name, p.schema])),
    };
    return (validate = ajv.compile(schema));
  };
  if (!op.validatedByHandler) warmUpLater(compiled);
  return (dto) => {
    const validate = compiled();
    if (validate(dto)) return ok(dto);
    const errors = dedupe((validate.errors ?? []).filter((e) => e.keyword !== 'if').map(toFieldError));
    return errors.length > 0 ? fail(ApiError.validation(errors)) : ok(dto);
  };
}

function toFieldError(e: ErrorObject): FieldError {
  const property = e.instancePath.split('/')[1] ?? String((e.params as { missingProperty?: string }).missingProperty ?? '');
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
