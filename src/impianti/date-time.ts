// DateTime values of impianto_file, in and out of the database. Both engines store UTC
// 'YYYY-MM-DD HH:MM:SS.fff' (design.md §9): MySQL DATETIME(3) reads that literal as is
// under time_zone '+00:00', and on SQLite it stays human-readable and sorts as text.
// Reading is lenient because operators load rows directly (design.md §8): a SQLite cell
// may hold that text, ISO 8601 text, or epoch milliseconds (what knex writes for a JS
// Date on better-sqlite3); mysql2 hands back a Date already built in UTC.

/** 2026-11-20 10:15:30.000 — the text written for a Date on both engines. */
export function toDbDateTime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

// Date, optional time with optional fraction (any precision; truncated to ms), optional zone.
const textual = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/** The API form of a stored value: ISO 8601 UTC with milliseconds, `2026-11-20T10:15:30.000Z`. */
export function toIsoUtc(value: unknown): string {
  const date = toDate(value);
  if (date === undefined || Number.isNaN(date.getTime())) {
    // A corrupt cell is a server-side fault (500), never silently a wrong date.
    throw new Error(`impianto_file: unreadable date-time value ${JSON.stringify(String(value))}`);
  }
  return date.toISOString();
}

function toDate(value: unknown): Date | undefined {
  if (value instanceof Date) return value;
  if (typeof value === 'number' || typeof value === 'bigint') return new Date(Number(value));
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^-?\d+$/.test(text)) return new Date(Number(text));
  const m = textual.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone] = m;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  if (!sameFields(new Date(utc), [y, mo, d, h, mi, s])) return undefined;
  return new Date(utc - offsetMinutes(zone) * 60_000);
}

/** Rejects 2026-02-30 and 25:00 instead of letting Date.UTC roll them over. */
function sameFields(date: Date, fields: readonly (string | undefined)[]): boolean {
  const actual = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()];
  return actual.every((n, i) => n === Number(fields[i]));
}

function offsetMinutes(zone: string | undefined): number {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const digits = zone.replace(':', '');
  const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
  return digits.startsWith('-') ? -minutes : minutes;
}
