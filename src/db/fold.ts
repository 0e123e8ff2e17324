// Case- and accent-folding for the embedded engine. MySQL gets the same semantics from the
// column collation (see collation.ts); SQLite has no Unicode collation and better-sqlite3
// cannot register one, so the query engine compares fold(column) with folded values and
// the migrations index fold(column). Both engines then agree on =, In, Between, Like,
// StartsWith/EndsWith/Contains, ORDER BY and COUNT(DISTINCT) (design.md §7).

const combiningMarks = /\p{M}/gu;

/** NFD, drop combining marks, lower-case: "Città" -> "citta", "ROSSI" -> "rossi". */
export function fold(value: string): string {
  return value.normalize('NFD').replace(combiningMarks, '').toLowerCase();
}

/** The SQL function name registered on every SQLite connection. */
export const foldFunction = 'fold';
