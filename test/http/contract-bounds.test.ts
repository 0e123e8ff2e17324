// Every bound the contract declares on a request property (maxLength, minLength, minimum,
// maximum, maxItems, minItems, maxProperties, pattern, and the bounds inside lists and maps),
// read from generated/openapi.json and sent at its limit and one past it (one short of a
// minimum; a value its pattern refuses): the limit passes validation, one past it is a 400
// naming the property. So the spec's bounds and the server's cannot drift apart (design.md
// §3). Cases come from the contract, not from a list here: a new bounded property is tested
// without a new line, and a bound of a kind no case is made for fails the coverage test.
import { expect } from 'chai';
import type { Dialect } from '../../src/db/dialect.js';
import { loadContract, type OperationContract } from '../../src/http/contract.js';
import { pascal } from '../../src/errors/api-error.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

type Json = Record<string, unknown>;

interface BoundCase {
  readonly title: string;
  readonly op: OperationContract;
  readonly property: string;
  readonly fieldName: string;
  /** The bound's keyword, `items ` or `values ` before it when it bounds a list's items or a map's values. */
  readonly keyword: string;
  readonly atLimit: unknown;
  readonly past: unknown;
}

/** A string of `n` code points that the property's pattern or format accepts. */
function text(property: string, schema: Json, n: number): string {
  if (schema['format'] === 'email') {
    // local@domain, the domain in labels of at most 63 characters.
    const local = 'a'.repeat(Math.min(64, n - 6));
    let domain = '';
    for (let left = n - local.length - 1 - 3; left > 0; left -= Math.min(63, left) + 1) domain += `${'b'.repeat(Math.min(63, left))}.`;
    return `${local}@${domain}${'it'.padStart(n - local.length - 1 - domain.length, 'c')}`;
  }
  if (property === 'continue') return `/${'a'.repeat(n - 1)}`;
  // Comma lists of names: surrounding spaces are trimmed, so one known name pads to any length.
  if (property === 'include') return `Total${' '.repeat(n - 5)}`;
  if (property === 'orderBy' || property === 'orderByDesc' || property === 'fields') return `Id${' '.repeat(n - 2)}`;
  return 'a'.repeat(n);
}

/** Values a pattern may refuse, tried in turn: too short for a name, a doubled separator, a protocol-relative path. */
const patternBreakers = ['ab', 'a..b', '//a.example', 'a b'];

/** A value `pattern` refuses, kept within the property's lengths so the pattern alone refuses it. */
function refusedBy(pattern: string, schema: Json): string {
  const re = new RegExp(pattern, 'u');
  const value = patternBreakers.find((v) => !re.test(v) && v.length <= ((schema['maxLength'] as number | undefined) ?? Infinity));
  if (value === undefined) throw new Error(`no value in patternBreakers breaks the pattern ${pattern}: add one`);
  return value;
}

/** A valid item of a list (In lists, roles). */
function item(schema: Json): unknown {
  if (Array.isArray(schema['enum'])) return schema['enum'][0];
  return schema['type'] === 'integer' ? 1 : 'a';
}

function casesOf(op: OperationContract): BoundCase[] {
  const cases: BoundCase[] = [];
  for (const p of op.properties.values()) {
    const s = p.schema as Json;
    const add = (keyword: string, bound: string, atLimit: unknown, past: unknown) =>
      cases.push({ title: `${op.operationId} ${pascal(p.name)} ${keyword} ${bound}`, op, property: p.name, fieldName: p.inPath ? p.name[0]!.toUpperCase() + p.name.slice(1) : pascal(p.name), keyword, atLimit, past });
    if (p.type === 'string' && typeof s['maxLength'] === 'number' && s['enum'] === undefined) {
      add('maxLength', String(s['maxLength']), text(p.name, s, s['maxLength']), text(p.name, s, s['maxLength'] + 1));
    }
    if (p.type === 'string' && typeof s['minLength'] === 'number') add('minLength', String(s['minLength']), text(p.name, s, s['minLength']), text(p.name, s, s['minLength'] - 1));
    if (p.type === 'string' && typeof s['pattern'] === 'string') {
      const accepted = text(p.name, s, 8);
      if (!new RegExp(s['pattern'], 'u').test(accepted)) throw new Error(`${op.operationId} ${p.name}: text() gives "${accepted}", which its pattern refuses`);
      add('pattern', `refuses "${refusedBy(s['pattern'], s)}"`, accepted, refusedBy(s['pattern'], s));
    }
    if (p.type === 'integer' && typeof s['maximum'] === 'number') add('maximum', String(s['maximum']), s['maximum'], s['maximum'] + 1);
    if (p.type === 'integer' && typeof s['minimum'] === 'number') add('minimum', String(s['minimum']), s['minimum'], s['minimum'] - 1);
    if (p.type === 'array') {
      const items = (s['items'] ?? {}) as Json;
      const fewest = typeof s['minItems'] === 'number' ? s['minItems'] : 0;
      /** A list of a valid length whose last item is `last`. */
      const listEndingIn = (last: unknown) => [...Array.from({ length: Math.max(1, fewest) - 1 }, () => item(items)), last];
      if (typeof s['maxItems'] === 'number') {
        const n = s['maxItems'];
        add('maxItems', String(n), Array.from({ length: n }, () => item(items)), Array.from({ length: n + 1 }, () => item(items)));
        if (n > 0 && items['type'] === 'string' && typeof items['maxLength'] === 'number') {
          add('items maxLength', String(items['maxLength']), Array.from({ length: n }, () => 'a'.repeat(items['maxLength'] as number)), listEndingIn('a'.repeat(items['maxLength'] + 1)));
        }
      }
      if (fewest > 0) add('minItems', String(fewest), Array.from({ length: fewest }, () => item(items)), Array.from({ length: fewest - 1 }, () => item(items)));
      if (items['type'] === 'integer' && typeof items['maximum'] === 'number') add('items maximum', String(items['maximum']), listEndingIn(items['maximum']), listEndingIn(items['maximum'] + 1));
      if (items['type'] === 'integer' && typeof items['minimum'] === 'number') add('items minimum', String(items['minimum']), listEndingIn(items['minimum']), listEndingIn(items['minimum'] - 1));
    }
    if (p.type === 'object' && typeof s['maxProperties'] === 'number') {
      const n = s['maxProperties'];
      const map = (k: number) => Object.fromEntries(Array.from({ length: k }, (_, i) => [`k${i}`, 'v']));
      add('maxProperties', String(n), map(n), map(n + 1));
      const values = (s['additionalProperties'] ?? {}) as Json;
      if (typeof values['maxLength'] === 'number') add('values maxLength', String(values['maxLength']), { k: 'v'.repeat(values['maxLength']) }, { k: 'v'.repeat(values['maxLength'] + 1) });
    }
  }
  return cases;
}

const contract = await loadContract();
// One route per request DTO: the canonical one (a GET twin or PUT shares its DTO and bounds).
const twins = new Set(['RegisterPut', 'CaratteristicaGruppoQueryGet', 'SoggettoRecapitoQueryGet', 'CaratteristicaGruppoQueryExportGet', 'SoggettoRecapitoQueryExportGet']);
const operations = [...contract.operations.values()].filter((op) => op.operationId === op.canonicalId && !twins.has(op.operationId));
const cases = operations.flatMap(casesOf);

/** Keywords that bound a value (JSON Schema validation keywords other than type, enum and format). */
const boundKeywords = new Set(['maxLength', 'minLength', 'pattern', 'maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties', 'propertyNames']);
const prefixes: Record<string, string> = { items: 'items ', additionalProperties: 'values ' };

/** Every bound in a schema, at any depth, named as BoundCase.keyword names it. */
function boundsIn(schema: unknown, prefix = ''): string[] {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return [];
  return Object.entries(schema as Json).flatMap(([k, v]) => {
    if (boundKeywords.has(k)) return [`${prefix}${k}`];
    // Annotations, not bounds: x-error-messages words the answers to the bounds beside it.
    if (k === 'enum' || k === 'default' || k === 'example' || k === 'examples' || k === 'x-error-messages') return [];
    // A list that may hold no item (ServiceStack's permissions) has no item to bound: its maxItems case covers it.
    if (k === 'items' && (schema as Json)['maxItems'] === 0) return [];
    return boundsIn(v, `${prefix}${prefixes[k] ?? `${k} `}`);
  });
}

forEachDialect('contract bounds: each request bound at its limit and one past it', (dialect: Dialect) => {
  let s: TestServer;
  let admin: string;
  let apiUser: string;
  let serial = 0;
  before(async () => {
    s = await startServer({ dialect });
    admin = await s.tokenFor(['Admin']);
    apiUser = await s.tokenFor(['ApiUser']);
    expect((await s.request('POST', '/register', { json: { userName: 'limiti', password: 'Password-sicura-1' } })).status).to.equal(200);
  });
  after(() => s.close());

  /** A request that passes validation, with `property` set to `value`. */
  const send = (c: BoundCase, value: unknown) => {
    const { op } = c;
    const base: Json = {
      Register: { userName: `limite${++serial}`, password: 'Password-sicura-1' },
      Authenticate: { userName: 'limiti', password: 'Password-sbagliata-1' },
      GetAccessToken: { refreshToken: 'non-un-token' },
      AssignRoles: { userName: 'limiti', roles: ['ApiUser'] },
      UnAssignRoles: { userName: 'limiti', roles: ['ApiUser'] },
    }[op.operationId] as Json ?? {};
    const dto: Json = { ...base, [c.property]: value };
    // ConfirmPassword must equal Password up to its own limit.
    if (op.operationId === 'Register' && c.property === 'confirmPassword') dto['password'] = typeof value === 'string' && value.length <= 256 ? value : 'p'.repeat(256);
    if (op.operationId === 'Register' && c.property === 'password') dto['confirmPassword'] = value;
    const token = op.access.kind === 'public' ? undefined : op.access.roles.includes('Admin') ? admin : apiUser;
    if (op.properties.get(c.property)!.inPath) {
      const path = op.path.replace(/\{[^}]+\}/, encodeURIComponent(String(value)));
      return s.request(op.method.toUpperCase(), path, { token });
    }
    if (!op.acceptsBody) {
      const query = new URLSearchParams(Object.entries(dto).map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v)]));
      return s.request(op.method.toUpperCase(), `${op.path}?${query}`, { token });
    }
    return s.request(op.method.toUpperCase(), op.path, { json: dto, token });
  };

  it('has a case for every bound of every request property the contract declares', () => {
    const declared = operations.flatMap((op) => [...op.properties.values()].flatMap((p) => boundsIn(p.schema).map((b) => `${op.operationId} ${p.name} ${b}`)));
    const tested = new Set(cases.map((c) => `${c.op.operationId} ${c.property} ${c.keyword}`));
    expect(declared.filter((b) => !tested.has(b)), 'bounds without a case').to.deep.equal([]);
    // The walk reads the schemas the server validates with: they do declare bounds.
    expect(declared.length).to.be.greaterThan(100);
  });

  /** Properties whose every valid value the server wrote itself: a cursor (design.md §7). */
  const opaque = new Set(['after']);

  for (const c of cases) {
    it(c.title, async () => {
      const at = await send(c, c.atLimit);
      if (opaque.has(c.property)) {
        // A value of its own syntax is refused for what it says (no cursor this server signed), never for its length.
        expect(at.status, `at the limit: ${at.text.slice(0, 300)}`).to.equal(400);
        const errors = at.body.responseStatus.errors.map((e: { errorCode: string; fieldName: string }) => [e.errorCode, e.fieldName]);
        expect(errors, `at the limit: ${at.text.slice(0, 300)}`).to.deep.equal([['InvalidValue', c.fieldName]]);
      } else {
        expect(at.status, `at the limit: ${at.text.slice(0, 300)}`).to.be.oneOf([200, 401, 404]);
      }
      const past = await send(c, c.past);
      expect(past.status, `one past the limit: ${past.text.slice(0, 300)}`).to.equal(400);
      expect(past.body.responseStatus.errors.map((e: { fieldName: string }) => e.fieldName)).to.include(c.fieldName);
    });
  }

  // The edge's own parameters, on the simplest operation that reads them.
  const edge: Array<[string, string, string]> = [
    ['callback', 'a'.repeat(128), 'a'.repeat(129)],
    ['_', '1'.repeat(64), '1'.repeat(65)],
  ];
  for (const [name, atLimit, past] of edge) {
    it(`Health ${name} maxLength ${atLimit.length}`, async () => {
      expect((await s.request('GET', `/health?${name}=${atLimit}`)).status).to.equal(200);
      // With a bad callback there is no callback to wrap the error in: a plain 400.
      const r = await s.request('GET', `/health?${name}=${past}`);
      expect(r.status).to.equal(400);
      expect(r.body.responseStatus.errors.map((e: { fieldName: string }) => e.fieldName)).to.include(name);
    });
  }
});
