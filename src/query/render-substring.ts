// The candidate rows of a condition the trigram index serves (substring-routes.ts), as a
// fragment ANDed before the condition's own LIKE: the index narrows, the LIKE decides.
import type { Fragment } from './render-conditions.js';
import type { SubstringRoute } from './substring-routes.js';

/** `key IN (the index's rows for the route)`; `index` is the catalog's trigram table. */
export function substringFragment(route: SubstringRoute, index: string, key: string): Fragment {
  if (route.kind === 'match') return { sql: '?? IN (SELECT rowid FROM ?? WHERE ?? MATCH ?)', bindings: [key, index, index, route.match] };
  const [rarest, next] = route.grams;
  if (next === undefined) return { sql: '?? IN (SELECT id FROM ?? WHERE gram = ?)', bindings: [key, index, rarest!] };
  // The rarest gram's rows, each kept only where the next rarest gram's row exists: one index lookup each.
  return {
    sql: '?? IN (SELECT a.id FROM ?? a JOIN ?? b ON b.gram = ? AND b.id = a.id WHERE a.gram = ?)',
    bindings: [key, index, index, next, rarest!],
  };
}

/** Both fragments, the index's first. */
export const bothOf = (first: Fragment, second: Fragment): Fragment => ({ sql: `${first.sql} AND ${second.sql}`, bindings: [...first.bindings, ...second.bindings] });
