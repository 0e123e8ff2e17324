// Case- and accent-folding for the embedded engine. MySQL gets the same semantics from the
// column collation (see collation.ts); SQLite has no Unicode collation and better-sqlite3
// cannot register one, so the query engine compares fold(column) with folded values and
// the migrations index fold(column). Both engines then agree on =, In, Between, Like,
// StartsWith/EndsWith/Contains, ORDER BY and COUNT(DISTINCT) (design.md §7).

const combiningMarks = /\p{M}/gu;
const beyondAscii = /[^\x00-\x7f]/;

/** NFD, drop combining marks, lower-case: "Città" -> "citta", "ROSSI" -> "rossi". */
export function fold(value: string): string {
  // ASCII has no combining marks and NFD leaves it as it is: a bulk load of mostly ASCII
  // rows calls this once per row and folded index, and the short way takes a quarter of the time.
  if (!beyondAscii.test(value)) return value.toLowerCase();
  return value.normalize('NFD').replace(combiningMarks, '').toLowerCase();
}

/** The SQL function name registered on every SQLite connection. */
export const foldFunction = 'fold';
