// The rows of a condition the trigram index serves (substring-routes.ts), as a fragment: on
// MySQL ANDed before the condition's own LIKE, which decides; on SQLite a Contains's phrase
// alone, which is exact.
import type { Fragment } from './render-conditions.js';
import type { SubstringRoute } from './substring-routes.js';

/** `key IN (the index's rows for the route)`; `index` is the catalog's trigram table. */
export function substringFragment(route: SubstringRoute, index: string, key: string): Fragment {
  if (route.kind === 'match') return { sql: '?? IN (SELECT rowid FROM ?? WHERE ?? MATCH ?)', bindings: [key, index, index, route.match] };
  // The rarest gram alone: a join of two grams' rows lets MariaDB's optimizer read the table
  // in key order for a LIMIT and look each row up in them, a scan of the whole table on a rare term.
  return { sql: '?? IN (SELECT id FROM ?? WHERE gram = ?)', bindings: [key, index, route.gram] };
}

/** Both fragments, the index's first. */
export const bothOf = (first: Fragment, second: Fragment): Fragment => ({ sql: `${first.sql} AND ${second.sql}`, bindings: [...first.bindings, ...second.bindings] });
