// One list of field errors from several checks: the contract's (openapi-backend's validators
// at the edge) and a handler's own rules, reported at once as ServiceStack's validation
// does (design.md §3).
import type { FieldError } from './api-error.js';

/**
 * The errors of `lists`, ordered by `rank` of the field, and in list order where ranks tie,
 * so a field's contract errors come before the handler's rules about it. A (field, code) an
 * earlier list reported is left out of the later ones: one `Length` on `Meta`, whichever
 * check found it. Within one list every error stays (each malformed `Include` item).
 */
export function mergeFieldErrors(lists: readonly (readonly FieldError[])[], rank: (fieldName: string) => number): FieldError[] {
  const seen = new Set<string>();
  const merged: { error: FieldError; rank: number; at: number }[] = [];
  for (const list of lists) {
    const keys = list.map((e) => `${e.fieldName}\u0000${e.errorCode}`);
    list.forEach((error, i) => {
      if (!seen.has(keys[i]!)) merged.push({ error, rank: rank(error.fieldName), at: merged.length });
    });
    for (const key of keys) seen.add(key);
  }
  return merged.sort((a, b) => a.rank - b.rank || a.at - b.at).map((m) => m.error);
}

/** Each (field, code) once, the first kept. */
export function distinctFieldErrors(errors: readonly FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.fieldName}\u0000${e.errorCode}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Ranks fields by their place in `order` (the order a handler checks them in); others last. */
export function rankIn(order: readonly string[]): (fieldName: string) => number {
  const places = new Map(order.map((name, i) => [name, i]));
  return (fieldName) => places.get(fieldName) ?? order.length;
}
