// Request values as the planner reads them. The contract bounds them (lengths, list counts,
// Between's two values), checked at the edge before the engine runs (design.md §3); the
// engine takes its input as `unknown`, so each value is narrowed to its family's type here,
// and what a schema cannot say of SQL's reading of a value is checked here too. Each failure
// is a field error naming the spec's PascalCase parameter.
import { ApiError, collect, fail, ok, type Result } from '../errors/api-error.js';
import type { FieldErrorCode } from '../errors/catalogue.js';
import { isInt32 } from '../int32.js';
import type { Arity, Family } from './catalog-types.js';
import type { Scalar } from './plan-types.js';

export const invalid = <T = never>(code: FieldErrorCode, fieldName: string, message: string): Result<T> =>
  fail(ApiError.field(code, fieldName, message));

export function int32(value: unknown, name: string): Result<number> {
  if (!isInt32(value)) {
    return invalid('InvalidType', name, `'${name}' must be a 32-bit integer`);
  }
  return ok(value);
}

export function text(value: unknown, name: string): Result<string> {
  if (typeof value !== 'string') return invalid('InvalidType', name, `'${name}' must be a string`);
  // SQLite's LIKE reads its operands as C strings and stops at a NUL, so `%\0x` would match
  // every row there while MySQL matches it literally: no value may hold one (issue 7 fuzzing).
  if (value.includes('\u0000')) return invalid('InvalidValue', name, `'${name}' must not contain the NUL character`);
  return ok(value);
}

export function bool(value: unknown, name: string): Result<boolean> {
  return typeof value === 'boolean' ? ok(value) : invalid('InvalidType', name, `'${name}' must be true or false`);
}

type ScalarParser = (value: unknown, name: string) => Result<Scalar>;

export const scalarOf: Record<Family, ScalarParser> = {
  integer: (v, name) => int32(v, name),
  string: (v, name) => text(v, name),
  boolean: (v, name) => bool(v, name),
};

/** Item errors are reported once per parameter: a list of 1000 bad items is one error. */
function items(values: readonly unknown[], name: string, family: Family): Result<Scalar[]> {
  const results = values.map((v) => scalarOf[family](v, name));
  const firstBad = results.find((r) => !r.ok);
  return firstBad ? collect([firstBad]) : collect(results);
}

type ArityParser = (value: unknown, name: string, family: Family) => Result<Scalar[]>;

export const valuesOf: Record<Arity, ArityParser> = {
  one: (v, name, family) => {
    const r = scalarOf[family](v, name);
    return r.ok ? ok([r.value]) : r;
  },
  pair: (v, name, family) => (Array.isArray(v) ? items(v, name, family) : invalid('InvalidType', name, `'${name}' must be a list of 2 values`)),
  list: (v, name, family) => (Array.isArray(v) ? items(v, name, family) : invalid('InvalidType', name, `'${name}' must be a list`)),
};

/** A comma list (OrderBy, Fields, Include): items trimmed, empty items dropped. */
export function commaList(value: unknown, name: string): Result<string[]> {
  const r = text(value, name);
  if (!r.ok) return r;
  return ok(r.value.split(',').map((s) => s.trim()).filter((s) => s !== ''));
}
