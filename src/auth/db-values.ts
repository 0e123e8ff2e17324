// Reading values back from either engine: better-sqlite3 stores the Dates knex binds as
// epoch milliseconds and ids as numbers; mysql2 returns Dates and (with bigNumberStrings)
// may return ids as strings.

export function millisOf(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return /^\d+$/.test(value) ? Number(value) : Date.parse(/Z|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  return NaN;
}

export const idOf = (value: unknown): string => String(value);
