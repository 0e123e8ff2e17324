// `After` as SQL (design.md §7): the rows that follow the cursor's row in the query's order,
// written out term by term, `a > x OR (a = x AND id > y)`, which both engines serve as a
// range of the first term's index (a row-value comparison `(a, id) > (x, y)` SQLite reads
// by a full scan). NULL rows sit at one end of a field's index, outside any range that
// holds its values, so where the rows after the cursor cross between NULL and non-NULL
// values they are split into consecutive groups: one statement each, in order, the next
// one run only when the rows so far do not fill the page (execute.ts).
import type { OrderTerm } from './plan-types.js';
import type { Bound, Fragment } from './render-conditions.js';
import type { SqlDialect } from './sql-dialect.js';

type Value = number | string | null;

const and = (parts: readonly Fragment[]): Fragment => ({
  sql: parts.length === 1 ? parts[0]!.sql : parts.map((p) => `(${p.sql})`).join(' AND '),
  bindings: parts.flatMap((p) => p.bindings),
});

// Parenthesized whole: Knex ANDs each WHERE fragment with the query's filters as it is.
const or = (parts: readonly Fragment[]): Fragment => ({
  sql: parts.length === 1 ? parts[0]!.sql : `(${parts.map((p) => `(${p.sql})`).join(' OR ')})`,
  bindings: parts.flatMap((p) => p.bindings),
});

/** A piece of the rows after a term's value; a NULL test (`IS [NOT] NULL`) begins a new group. */
interface Piece { readonly fragment: Fragment; readonly nullTest: 'null' | 'notNull' | undefined }

function compare(t: OrderTerm, op: string, v: number | string, dialect: SqlDialect): Fragment {
  return { sql: `${dialect.compared(t.field)} ${op} ?`, bindings: [t.field.column, dialect.bind(t.field, v) as Bound] };
}

// On the compared expression, so that SQLite's fold(col) index serves the test too.
const isNull = (t: OrderTerm, not: boolean, dialect: SqlDialect): Fragment => ({ sql: `${dialect.compared(t.field)} IS ${not ? 'NOT ' : ''}NULL`, bindings: [t.field.column] });

/** The values of one term that come after `v`, in order: NULL is first ascending, last descending. */
function after(t: OrderTerm, v: Value, dialect: SqlDialect): Piece[] {
  if (v === null) return t.desc ? [] : [{ fragment: isNull(t, true, dialect), nullTest: 'notNull' }];
  const beyond: Piece = { fragment: compare(t, t.desc ? '<' : '>', v, dialect), nullTest: undefined };
  return t.desc && t.field.nullable ? [beyond, { fragment: isNull(t, false, dialect), nullTest: 'null' }] : [beyond];
}

const equal = (t: OrderTerm, v: Value, dialect: SqlDialect): Fragment => (v === null ? isNull(t, false, dialect) : compare(t, '=', v, dialect));

/** One statement's share of the rows after the cursor. */
export interface KeysetGroup {
  readonly where: Fragment;
  /**
   * Order terms every row of the group has NULL in: the statement leaves them out of its
   * ORDER BY, where they change nothing, because MariaDB sorts a `col IS NULL` range
   * instead of reading it in index order while the term stays.
   */
  readonly nullTerms: ReadonlySet<number>;
}

/**
 * The groups in the order their rows come. Rows sharing the longest prefix of the cursor's
 * values come first, so the terms are walked from the last.
 */
export function keysetGroups(order: readonly OrderTerm[], values: readonly Value[], dialect: SqlDialect): KeysetGroup[] {
  /** How a disjunct holds the first term: at the cursor's value, beyond it, NULL, or otherwise. */
  type Lead = 'at' | 'beyond' | 'null' | 'other';
  type Disjunct = { fragment: Fragment; nulls: Set<number>; lead: Lead };
  const groups: Disjunct[][] = [[]];
  for (let i = order.length - 1; i >= 0; i--) {
    const prefix = order.slice(0, i).map((t, j) => equal(t, values[j]!, dialect));
    const prefixNulls = order.slice(0, i).flatMap((_, j) => (values[j] === null ? [j] : []));
    for (const piece of after(order[i]!, values[i]!, dialect)) {
      if (piece.nullTest && groups.at(-1)!.length > 0) groups.push([]);
      const nulls = new Set(prefixNulls);
      if (piece.nullTest === 'null') nulls.add(i);
      const lead: Lead = i > 0 ? (values[0] === null ? 'null' : 'at') : piece.nullTest === 'null' ? 'null' : piece.nullTest ? 'other' : 'beyond';
      groups.at(-1)!.push({ fragment: and([...prefix, piece.fragment]), nulls, lead });
    }
  }
  return groups
    .filter((g) => g.length > 0)
    .map((g) => {
      const bound = leadingBound(order[0]!, values[0]!, g.map((d) => d.lead), dialect);
      const disjunction = or(g.map((d) => d.fragment));
      return {
        where: bound && g.length > 1 ? and([bound, disjunction]) : disjunction,
        nullTerms: new Set([...g[0]!.nulls].filter((j) => g.every((d) => d.nulls.has(j)))),
      };
    });
}

/**
 * What every disjunct of a group says of the first term, as a range of its own: SQLite
 * then scans that range of the index in order, where the bare OR can lead it to read each
 * disjunct apart and sort their union (MULTI-INDEX OR).
 */
function leadingBound(t: OrderTerm, v: Value, leads: readonly string[], dialect: SqlDialect): Fragment | undefined {
  if (v !== null && leads.every((l) => l === 'at' || l === 'beyond')) return compare(t, t.desc ? '<=' : '>=', v, dialect);
  if (leads.every((l) => l === 'null')) return isNull(t, false, dialect);
  return undefined;
}
