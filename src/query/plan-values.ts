// Type checks for request values. The edge converts and validates against the OpenAPI
// schema, but the engine does not rely on that: every value is checked again here and
// each failure becomes a field error naming the spec's PascalCase parameter.
import { ApiError, collect, fail, ok, type Result } from '../errors/api-error.js';
import type { FieldErrorCode } from '../errors/catalogue.js';
import { isInt32 } from '../int32.js';
import type { Arity, Family, QueryLimits } from './catalog-types.js';
import type { Scalar } from './plan-types.js';

export const invalid = <T = never>(code: FieldErrorCode, fieldName: string, message: string): Result<T> =>
  fail(ApiError.field(code, fieldName, message));

export function int32(value: unknown, name: string): Result<number> {
  if (!isInt32(value)) {
    return invalid('InvalidType', name, `'${name}' must be a 32-bit integer`);
  }
  return ok(value);
}

/** Lengths count Unicode code points (design.md §1), not UTF-16 units. */
export function text(value: unknown, name: string, limits: QueryLimits): Result<string> {
  if (typeof value !== 'string') return invalid('InvalidType', name, `'${name}' must be a string`);
  // SQLite's LIKE reads its operands as C strings and stops at a NUL, so `%\0x` would match
  // every row there while MySQL matches it literally: no value may hold one (issue 7 fuzzing).
  if (value.includes('\u0000')) return invalid('InvalidValue', name, `'${name}' must not contain the NUL character`);
  if ([...value].length > limits.stringMaxLength) {
    return invalid('Length', name, `'${name}' must be at most ${limits.stringMaxLength} characters`);
  }
  return ok(value);
}

export function bool(value: unknown, name: string): Result<boolean> {
  return typeof value === 'boolean' ? ok(value) : invalid('InvalidType', name, `'${name}' must be true or false`);
}

type ScalarParser = (value: unknown, name: string, limits: QueryLimits) => Result<Scalar>;

export const scalarOf: Record<Family, ScalarParser> = {
  integer: (v, name) => int32(v, name),
  string: (v, name, limits) => text(v, name, limits),
  boolean: (v, name) => bool(v, name),
};

/** Item errors are reported once per parameter: a list of 1000 bad items is one error. */
function items(values: readonly unknown[], name: string, family: Family, limits: QueryLimits): Result<Scalar[]> {
  const results = values.map((v) => scalarOf[family](v, name, limits));
  const firstBad = results.find((r) => !r.ok);
  return firstBad ? collect([firstBad]) : collect(results);
}

type ArityParser = (value: unknown, name: string, family: Family, limits: QueryLimits) => Result<Scalar[]>;

export const valuesOf: Record<Arity, ArityParser> = {
  one: (v, name, family, limits) => {
    const r = scalarOf[family](v, name, limits);
    return r.ok ? ok([r.value]) : r;
  },
  pair: (v, name, family, limits) => {
    if (!Array.isArray(v)) return invalid('InvalidType', name, `'${name}' must be a list of 2 values`);
    if (v.length !== 2) return invalid('InvalidValue', name, `'${name}' takes exactly 2 values, got ${v.length}`);
    return items(v, name, family, limits);
  },
  list: (v, name, family, limits) => {
    if (!Array.isArray(v)) return invalid('InvalidType', name, `'${name}' must be a list`);
    if (v.length > limits.inMaxItems) {
      return invalid('TooMany', name, `'${name}' takes at most ${limits.inMaxItems} values, got ${v.length}`);
    }
    return items(v, name, family, limits);
  },
};

/** A comma list (OrderBy, Fields, Include): items trimmed, empty items dropped. */
export function commaList(value: unknown, name: string, limits: QueryLimits): Result<string[]> {
  const r = text(value, name, limits);
  if (!r.ok) return r;
  return ok(r.value.split(',').map((s) => s.trim()).filter((s) => s !== ''));
}
