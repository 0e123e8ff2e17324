// Values that break a property's schema in generated/openapi.json: wrong JSON type,
// text that no conversion accepts, and rule violations read off the schema itself
// (maxLength, minLength, min/maxItems, minimum, pattern, format, enum, maxProperties).
// Each value is refused whatever the rest of the request says.
import fc from 'fast-check';
import type { DtoProperty } from '../../../src/http/contract.js';
import { ownObject } from './draft.js';
import { sqlInjections, unicodeText } from './hostile-values.js';

type Schema = Readonly<Record<string, unknown>>;

const deep = (depth: number, leaf: unknown = 1): unknown => {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

/** A JSON value of another type than the property's (never null: null means absent). */
export function wrongJson(p: DtoProperty): fc.Arbitrary<unknown> {
  const notInt = fc.oneof(fc.constantFrom(1.5, -0.5, 2147483648, -2147483649, 1e300, Number.MAX_SAFE_INTEGER), unicodeText(10), fc.boolean(), fc.constant([1]), fc.constant({}));
  const notString = fc.oneof(fc.integer(), fc.boolean(), fc.constant([]), fc.constant(['x']), fc.constant({ a: 'b' }), fc.nat({ max: 3000 }).map((n) => deep(n)));
  const notBool = fc.oneof(fc.constantFrom('true', 'false', 1, 0, 'yes'), fc.constant([true]), fc.constant({}));
  switch (p.type) {
    case 'integer':
    case 'number':
      return p.type === 'number' ? fc.oneof(unicodeText(10), fc.boolean(), fc.constant([1])) : notInt;
    case 'string': return notString;
    case 'boolean': return notBool;
    case 'array':
      return fc.oneof(
        fc.oneof(fc.integer(), unicodeText(10), fc.boolean(), fc.constant({ 0: 1 })),
        // One bad item spoils the list.
        fc.tuple((p.items === 'integer' ? fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }) : fc.array(unicodeText(10), { maxLength: 3 })) as fc.Arbitrary<unknown[]>, p.items === 'integer' ? notInt : notString)
          .map(([good, bad]) => [...good, bad]),
        fc.constant([null]),
      );
    case 'object':
      return fc.oneof(
        fc.oneof(unicodeText(10), fc.integer(), fc.constant(['a'])),
        fc.tuple(fc.constantFrom('__proto__', 'constructor', 'a'), fc.oneof(fc.integer(), fc.constant(null), fc.constant({ polluted: true }), fc.nat({ max: 3000 }).map((n) => deep(n))))
          .map(([k, v]) => ownObject([[k, v]])),
      );
  }
}

/** Text a query string or form carries that no conversion to the property's type accepts; undefined for plain strings. */
export function wrongText(p: DtoProperty): fc.Arbitrary<string> | undefined {
  switch (p.type) {
    case 'integer':
      return fc.constantFrom('', 'abc', '1.5', '1e3', '0x10', '2147483648', '-2147483649', '99999999999', '1 OR 1=1', "1'", '١٢', '+-1', 'NaN', 'Infinity', '--1');
    case 'boolean':
      return fc.constantFrom('', 'yes', 'no', '2', 'tru', 'null', "true' OR '1'='1", 'on');
    case 'array':
      return p.items === 'integer'
        ? fc.constantFrom('1,a', '[1,"a"]', '[1', '1,,2', '[1.5]', '[null]', '1;2', "1,2' OR 1=1 --")
        : fc.constantFrom('[', '[1,2]', '[{}]', '[null]', '["a",', '[true]');
    case 'object':
      return fc.constantFrom('notjson', '[]', '{"a":1}', '{"a":null}', '"str"', '{', '{"__proto__":{"x":1}}', '1');
    default:
      return undefined;
  }
}

const emails = ['not-an-email', 'a@', '@b.it', 'a@b..it', 'a b@c.it', "x'@y.it; --", `${'a'.repeat(250)}@b.it`, 'a@-b.it', 'a@b.it.', 'a@@b.it', '<a@b.it>'];

/** Values of the right JSON type that break a rule of the property's schema. */
export function ruleViolation(p: DtoProperty): fc.Arbitrary<unknown> | undefined {
  const s = p.schema as Schema;
  const options: fc.Arbitrary<unknown>[] = [];
  const cp = (n: number, astral: boolean) => (astral ? '😀' : 'x').repeat(n);
  if (p.type === 'string') {
    const max = s['maxLength'];
    const min = s['minLength'];
    // Astral characters count one each (design.md §1): 1001 of them is still too long.
    if (typeof max === 'number') options.push(fc.tuple(fc.integer({ min: 1, max: 50 }), fc.boolean()).map(([extra, astral]) => cp(max + extra, astral)));
    if (typeof min === 'number' && min > 1) options.push(fc.integer({ min: 1, max: min - 1 }).map((n) => cp(n, false)));
    const pattern = s['pattern'];
    if (typeof pattern === 'string') {
      const re = new RegExp(pattern, 'u');
      const misses = [...sqlInjections, 'ab', '_abc', 'a..b', 'ab c', 'àbc', 'a'.repeat(37), '//evil.example', 'http://evil.example', '/\\evil', ' /x'].filter((v) => !re.test(v));
      options.push(fc.constantFrom(...misses));
    }
    if (s['format'] === 'email') options.push(fc.constantFrom(...emails));
  }
  if (p.type === 'integer') {
    const min = s['minimum'];
    if (typeof min === 'number' && min > -2147483648) options.push(fc.integer({ min: -2147483648, max: min - 1 }));
  }
  if (p.type === 'array') {
    const items = (s['items'] ?? {}) as Schema;
    const minItems = s['minItems'];
    const maxItems = s['maxItems'];
    const item = p.items === 'integer' ? 1 : 'x';
    if (typeof maxItems === 'number') options.push(fc.integer({ min: maxItems + 1, max: maxItems + 3 }).map((n) => Array.from({ length: n }, (_, i) => (p.items === 'integer' ? i : `v${i}`))));
    if (typeof minItems === 'number' && minItems > 0) options.push(fc.integer({ min: 0, max: minItems - 1 }).map((n) => Array<unknown>(n).fill(item)));
    if (typeof items['maxLength'] === 'number') options.push(fc.constant([cp((items['maxLength'] as number) + 1, true)]));
    if (Array.isArray(items['enum'])) options.push(fc.constantFrom('Root', 'admin', 'ADMIN', '', "Admin' OR '1'='1", 'Admin ').map((r) => ['ApiUser', r]));
  }
  if (p.type === 'object') {
    const maxProps = s['maxProperties'];
    const valueMax = ((s['additionalProperties'] ?? {}) as Schema)['maxLength'];
    if (typeof maxProps === 'number') options.push(fc.constant(ownObject(Array.from({ length: maxProps + 1 }, (_, i) => [`k${i}`, 'v']))));
    if (typeof valueMax === 'number') options.push(fc.constant(ownObject([['k', 'v'.repeat(valueMax + 1)]])));
  }
  return options.length > 0 ? fc.oneof(...options) : undefined;
}
