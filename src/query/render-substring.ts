// The rows of a condition the trigram index serves (substring-routes.ts), as a fragment: on
// MySQL ANDed before the condition's own LIKE, which decides; on SQLite a Contains's phrase
// alone, which is exact.
import type { Fragment } from './render-conditions.js';
import type { SubstringRoute } from './substring-routes.js';

/** `key IN (the index's rows for the route)`; `index` is the catalog's trigram table. */
export function substringFragment(route: SubstringRoute, index: string, key: string): Fragment {
  if (route.kind === 'match') return { sql: '?? IN (SELECT rowid FROM ?? WHERE ?? MATCH ?)', bindings: [key, index, index, route.match] };
  const { rarest, next } = route;
  if (next === undefined) return { sql: '?? IN (SELECT id FROM ?? WHERE gram = ?)', bindings: [key, index, rarest.gram] };
  // The rarest gram's rows where the next rarest stands at its distance in the term: one lookup
  // each in the trigram table before any row of the table is read. The LIMIT, far above any
  // count, keeps MariaDB from merging the derived table into the outer query, whose LIMIT would
  // then lead it to read the table in key order and probe the join for every row.
  return {
    sql: '?? IN (SELECT x.id FROM (SELECT a.id FROM ?? a JOIN ?? b ON b.gram = ? AND b.id = a.id AND b.pos = CAST(a.pos AS SIGNED) + ? WHERE a.gram = ? LIMIT 4294967295) x)',
    bindings: [key, index, index, next.gram, next.offset - rarest.offset, rarest.gram],
  };
}

/** Both fragments, the index's first. */
export const bothOf = (first: Fragment, second: Fragment): Fragment => ({ sql: `${first.sql} AND ${second.sql}`, bindings: [...first.bindings, ...second.bindings] });
