// SQL text that Knex renders once, through its public toSQL().toNative(), and later
// queries reuse with their own values. Building and compiling a Knex query costs 25-45 µs
// of CPU per request (design.md §8), for text that only changes when the query's shape does.
//
// The order in which Knex wants the values is never assumed: Knex renders the query with
// a unique marker in place of each value, and where the markers land in its bindings is
// the order kept. A rendering that would not be the same for other values (a marker
// written into the text, a value left out or bound twice) is refused.
import type { Knex } from 'knex';

/** Where each binding of the text comes from: a value by its position, or a constant Knex added (`limit 1`). */
export type Source = { readonly value: number } | { readonly constant: unknown };

export interface Template {
  readonly sql: string;
  readonly sources: readonly Source[];
}

// Numbers, so that they also pass where Knex wants one (limit, offset); far above any id,
// Take or Skip the contract lets through (int32 values are below 2^31, Skip/Take far below).
const markerBase = 3_000_000_000;

/** The stand-in for value `i` while Knex renders a shape. */
export const marker = (i: number): number => markerBase + i;

/** The template of Knex's rendering of a query whose `valueCount` values were markers; undefined if refused. */
export function templateFrom(sql: string, bindings: readonly unknown[], valueCount: number): Template | undefined {
  const sources: Source[] = [];
  const bound = new Set<number>();
  for (const b of bindings) {
    const i = typeof b === 'number' ? b - markerBase : -1;
    if (i >= 0 && i < valueCount && Number.isInteger(i)) {
      if (bound.has(i)) return undefined;
      bound.add(i);
      sources.push({ value: i });
    } else if (typeof b === 'number' && b >= markerBase) {
      return undefined;
    } else {
      sources.push({ constant: b });
    }
  }
  if (bound.size !== valueCount) return undefined;
  // A marker in the text would be a value Knex inlined.
  for (let i = 0; i < valueCount; i++) if (sql.includes(String(marker(i)))) return undefined;
  return { sql, sources };
}

/** The bindings of `template` for one query's values. */
export function bindingsOf(template: Template, values: readonly unknown[]): unknown[] {
  return template.sources.map((s) => ('value' in s ? values[s.value] : s.constant));
}

/**
 * A query of fixed shape, rendered by Knex on first use: `build` gets one marker per value
 * and returns the query builder. Throws at first use if Knex renders it in a way that
 * would not hold for other values.
 */
export function prepare(valueCount: number, build: (markers: readonly number[]) => Knex.QueryBuilder): (values: readonly unknown[]) => { sql: string; bindings: unknown[] } {
  let template: Template | undefined;
  return (values) => {
    if (template === undefined) {
      // toSQL().toNative(): the text as the driver takes it (knex's own `?`/`??` markup resolved).
      const { sql, bindings } = build(Array.from({ length: valueCount }, (_, i) => marker(i))).toSQL().toNative();
      template = templateFrom(sql, bindings, valueCount);
      if (template === undefined) throw new Error(`Knex rendered a prepared query unexpectedly: ${sql}`);
    }
    return { sql: template.sql, bindings: bindingsOf(template, values) };
  };
}
