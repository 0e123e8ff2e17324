// LIKE patterns. StartsWith/EndsWith/Contains match their value literally, so `%`, `_`
// and the escape character itself are escaped; Like takes the caller's pattern as is.
// Both engines get the escape character as a bound `ESCAPE ?` parameter: MySQL's default
// escape is `\` only while NO_BACKSLASH_ESCAPES is off, and SQLite has no default escape
// at all (https://www.sqlite.org/lang_expr.html#like), so naming it keeps them equal.

export const LIKE_ESCAPE = '\\';

/** `50%_off\` -> `50\%\_off\\`. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => LIKE_ESCAPE + c);
}

/**
 * A pattern ending in a lone escape character has no next character to escape; the
 * engines disagree on it (SQLite matches nothing, MySQL takes it literally), so the
 * planner refuses it.
 */
export function endsWithLoneEscape(pattern: string): boolean {
  const trailing = /\\+$/.exec(pattern)?.[0].length ?? 0;
  return trailing % 2 === 1;
}
