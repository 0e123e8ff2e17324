// Random data and random valid queries for the differential test, drawn from one small
// vocabulary (letters, digits, spaces, Italian accents) so that matches are frequent and
// the promised order (design.md §7) applies: no punctuation decides an order.
import fc from 'fast-check';
import type { FieldSpec, QueryDtoSpec } from '../../src/query/catalog-types.js';
import { operators } from './query-catalog.js';
import type { Row } from './query-reference.js';

export const words = ['citta', 'Città', 'CITTÀ', 'perché', 'PERCHE', 'Niccolò', 'rossi', 'Rossi', 'via', 'Via Roma', 'roma', 'a', 'b', 'ab', 'a b', '1', '12', '2', 'è', 'ò', 'Ù'];
export const ints = [-2147483648, -1, 0, 1, 2, 3, 5, 7, 100, 2147483647];
const letters = [...'abcrioeAÈÒàù12 '];

/** A deterministic data set: ~`n` rows, NULLs, trailing spaces and many ties. */
export function dataset(dto: QueryDtoSpec, n: number, seed: number): Row[] {
  let s = seed;
  const next = (k: number) => ((s = (s * 1103515245 + 12345) % 2147483648), s % k);
  const stringOf = () => {
    const r = next(10);
    if (r === 0) return null;
    const w = Array.from({ length: 1 + next(3) }, () => words[next(words.length)]!).join(' ');
    return r === 1 ? `${w} ` : w;
  };
  const valueOf: Record<FieldSpec['family'], () => Row[string]> = {
    integer: () => ints[next(ints.length)]!,
    string: stringOf,
    boolean: () => next(2) === 1,
  };
  return Array.from({ length: n }, (_, i) =>
    Object.fromEntries(dto.fields.map((f, j) => [f.column, j === 0 ? i + 1 : valueOf[f.family]()])),
  );
}

const fragment = fc.array(fc.constantFrom(...letters), { minLength: 1, maxLength: 3 }).map((a) => a.join(''));
const stringValue = fc.oneof(fc.constantFrom(...words), fragment, fc.constantFrom(...words).map((w) => `${w} `));
const likePattern = fc.array(fc.oneof(fc.constantFrom(...letters), fc.constantFrom('%', '_', '%')), { minLength: 1, maxLength: 5 }).map((a) => a.join(''));

const valueFor = (f: FieldSpec, kind: string): fc.Arbitrary<unknown> => {
  const one: fc.Arbitrary<unknown> = f.family === 'integer' ? fc.oneof(fc.constantFrom(...ints), fc.integer({ min: -3, max: 10 })) : f.family === 'boolean' ? fc.boolean() : kind === 'like' ? likePattern : kind === 'eq' ? stringValue : fragment;
  const scalar = f.family === 'string' ? stringValue : one;
  if (kind === 'between') return fc.tuple(scalar, scalar);
  if (kind === 'in') return fc.array(scalar, { maxLength: 4 });
  return one;
};

const lower = (s: string) => s[0]!.toLowerCase() + s.slice(1);

/** A random valid request DTO for `dto`. */
export function requestOf(dto: QueryDtoSpec): fc.Arbitrary<Record<string, unknown>> {
  const filter = fc.constantFrom(...dto.filters).chain((flt) => {
    const field = dto.fields.find((f) => f.name === flt.field)!;
    const kind = operators.find((o) => o.kind === flt.operator)!.kind;
    return valueFor(field, kind).map((v) => [flt.property, v] as const);
  });
  const names = dto.fields.map((f) => f.name);
  const term = fc.tuple(fc.boolean(), fc.constantFrom(...names)).map(([d, n]) => (d ? `-${n}` : n));
  const aggregate = fc.oneof(
    fc.constant('COUNT(*)'),
    fc.constantFrom(...names).chain((n) => fc.constantFrom(`COUNT(${n})`, `COUNT(DISTINCT ${n})`, `MIN(${n})`, `MAX(${n})`, `FIRST(${n})`, `LAST(${n})`)),
    fc.constantFrom(...dto.fields.filter((f) => f.family === 'integer').map((f) => f.name)).chain((n) => fc.constantFrom(`SUM(${n})`, `AVG(${n})`)),
  );
  return fc.record(
    {
      filters: fc.array(filter, { maxLength: 3 }),
      orderBy: fc.array(term, { maxLength: 2 }).map((t) => t.join(',')),
      orderByDesc: fc.array(fc.constantFrom(...names), { maxLength: 1 }).map((t) => t.join(',')),
      skip: fc.integer({ min: 0, max: 20 }),
      take: fc.integer({ min: 0, max: 25 }),
      fields: fc.subarray(names).map((t) => t.join(',')),
      include: fc.array(fc.oneof(fc.constant('Total'), aggregate), { maxLength: 3 }).map((t) => t.join(',')),
    },
    { requiredKeys: ['filters'] },
  ).map(({ filters, ...rest }) => ({ ...Object.fromEntries(filters), ...rest }));
}
