// How each engine asks its substring index (src/db/substring-index.ts) for the rows whose
// field may hold a term; the LIKE beside it (render-conditions.ts servedBySubstring) keeps
// exactly the rows that do. A term of fewer than three characters has no trigram, and is
// left to the scan (design.md §7, "Substring search").
import { trigramLength } from '../db/substring-index.js';
import type { Fragment, ServedBy } from './render-conditions.js';

/**
 * SQLite: the FTS5 table holds fold(column) and the term comes folded (sql-dialect.ts
 * bind), so a phrase of the whole term finds exactly the rows holding it. Inside an FTS5
 * string only `"` is special (doubled); `%`, `_` and `\` are plain characters there.
 */
export function sqliteLookup(term: string, index: ServedBy): Fragment | undefined {
  if ([...term].length < trigramLength) return undefined;
  return { sql: '?? IN (SELECT rowid FROM ?? WHERE ?? MATCH ?)', bindings: [index.key, index.name, index.name, `"${term.replaceAll('"', '""')}"`] };
}

/** Most trigrams a MySQL lookup joins: the optimizer starts from the rarest (index dives on each). */
const mysqlTrigrams = 3;

/**
 * The term's distinct trigrams, by code point (MySQL's utf8mb4 characters), at most
 * `mysqlTrigrams`, spread over the term: the first, the last and the middle one.
 */
export function spreadTrigrams(term: string): string[] {
  const points = [...term];
  const count = points.length - trigramLength + 1;
  if (count < 1) return [];
  const at = count <= mysqlTrigrams ? [...Array(count).keys()] : [0, count - 1, Math.floor((count - 1) / 2)];
  return [...new Set(at.map((i) => points.slice(i, i + trigramLength).join('')))];
}

/**
 * MySQL: the trigram table's keys for each chosen trigram, compared under the column's
 * collation (the table's), so `Città` finds `citta`; a row holding the term holds each.
 */
export function mysqlLookup(term: string, index: ServedBy): Fragment | undefined {
  const grams = spreadTrigrams(term);
  if (grams.length === 0) return undefined;
  return {
    sql: grams.map(() => '?? IN (SELECT ?? FROM ?? WHERE gram = ?)').join(' AND '),
    bindings: grams.flatMap((g) => [index.key, index.key, index.name, g]),
  };
}
