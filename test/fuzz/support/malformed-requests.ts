// The fuzzer's generator, driven by the contract (generated/openapi.json): for every
// operation, a well-typed base request full of hostile strings, then one malformation
// that the service must refuse with a 4xx whatever else the request holds. Nothing it
// produces is a valid request, so nothing it produces may write to the database.
import zlib from 'node:zlib';
import fc from 'fast-check';
import type { Contract, DtoProperty, OperationContract } from '../../../src/http/contract.js';
import { edgeParams } from '../../../src/http/request-dto.js';
import { build, ownObject, pct, put, textOf, valueOf, without, type Draft, type Tokens } from './draft.js';
import { anyText, hostileCallbacks, refusedAccepts, refusedContentTypes, sqlInjections, strangeKeys, validCallbacks } from './hostile-values.js';
import type { RawRequest } from './raw-http.js';
import { ruleViolation, wrongJson, wrongText } from './schema-violations.js';

export interface FuzzCase {
  readonly kind: string;
  readonly operationId: string;
  readonly request: RawRequest;
  /** A valid JSONP callback was sent: failures then come as 200 JSONP carrying responseStatus. */
  readonly callback: string | undefined;
}

type Malformation = (d: Draft) => fc.Arbitrary<Draft> | undefined;

const inBody = (d: Draft): boolean => d.body !== undefined;
const props = (op: OperationContract): DtoProperty[] => [...op.properties.values()].filter((p) => !p.inPath);
const tokenFor = (op: OperationContract, t: Tokens): string | undefined => {
  if (op.access.kind === 'public') return undefined;
  if (op.access.roles.includes('Admin')) return t.admin;
  return op.access.roles.length > 0 ? t.apiUser : t.noRole;
};

/** A well-typed request for `op`: correct token, properties of the right JSON type, hostile strings. */
function base(op: OperationContract, t: Tokens): fc.Arbitrary<Draft> {
  const candidates = props(op);
  const method = op.method.toUpperCase();
  const hasBody = op.acceptsBody && method !== 'GET';
  return fc.record({
    chosen: candidates.length > 0 ? fc.subarray(candidates, { maxLength: Math.min(4, candidates.length) }) : fc.constant([] as DtoProperty[]),
    form: fc.boolean(),
    id: fc.integer({ min: 1, max: 2147483647 }),
  }).chain(({ chosen, form, id }) =>
    fc.tuple(...chosen.map((p) => valueOf(p))).map((vals) => {
      const token = tokenFor(op, t);
      let d: Draft = {
        op, method, path: op.path.replace('{ImpiantoId}', String(id)), suffix: '', query: [],
        body: hasBody ? (form ? { kind: 'form', pairs: [] } : { kind: 'json', value: {} }) : undefined,
        contentType: form ? 'application/x-www-form-urlencoded' : 'application/json',
        authorization: token ? `Bearer ${token}` : undefined, headers: [],
      };
      // Body-only properties (passwords) stay in the body; a query string cannot carry them.
      chosen.forEach((p, i) => { if (d.body || p.inQuery) d = put(d, p, vals[i], textOf(p, vals[i])); });
      return d;
    }),
  );
}

const unknownKey: Malformation = (d) => {
  // `meta[x]` is an entry of an object property (deepObject), not an unknown key.
  const key = strangeKeys.filter((k) => !d.op.byLowerName.has(k.toLowerCase()) && !edgeParams.has(k.toLowerCase())
    && d.op.properties.get(d.op.byLowerName.get(/^([^[\]]+)\[/.exec(k)?.[1]?.toLowerCase() ?? '') ?? '')?.type !== 'object');
  const fake: DtoProperty = { name: '', type: 'string', items: undefined, inQuery: true, inPath: false, inBody: false, paramName: undefined, schema: {} };
  return fc.tuple(key, anyText, fc.boolean()).map(([k, v, inQuery]) => put(d, { ...fake, name: k }, v, v, inQuery || !d.body ? 'query' : 'body'));
};

const wrongType: Malformation = (d) => {
  const ps = props(d.op);
  if (ps.length === 0) return undefined;
  return fc.tuple(fc.constantFrom(...ps), fc.boolean()).chain(([p, preferQuery]) => {
    if (d.body?.kind === 'json') return wrongJson(p).map((v) => put(d, p, v, ''));
    const text = wrongText(p);
    // A string property takes any text: only a JSON body can give it the wrong type.
    if (!text) return fc.constant(put(d, p, 1, '1', 'query')).map((x) => ({ ...x, query: [...x.query, [p.name, '2'] as const] }));
    return text.map((v) => put(d, p, v, v, p.inQuery && (preferQuery || !d.body) ? 'query' : 'body'));
  });
};

/** The same scalar sent twice in a query string or form is refused. */
const repeated: Malformation = (d) => {
  const ps = props(d.op).filter((p) => p.type !== 'array' && p.inQuery);
  if (ps.length === 0) return undefined;
  return fc.tuple(fc.constantFrom(...ps), fc.constantFrom('1', 'true', 'x'), fc.constantFrom('2', 'false', 'y')).map(([p, a, b]) => {
    const once = put(d, p, a, a, 'query');
    return { ...once, query: [...once.query, [p.name.toUpperCase(), b] as const] };
  });
};

const secretInQuery: Malformation = (d) => {
  const ps = [...d.op.properties.values()].filter((p) => !p.inQuery);
  if (ps.length === 0) return undefined;
  return fc.tuple(fc.constantFrom(...ps), anyText).map(([p, v]) => ({ ...d, query: [...d.query, [p.inPath ? p.name : p.name.toLowerCase(), v] as const] }));
};

const brokenRule: Malformation = (d) => {
  const ps = props(d.op).map((p) => [p, ruleViolation(p)] as const).filter(([, v]) => v !== undefined);
  if (ps.length === 0) return undefined;
  return fc.constantFrom(...ps).chain(([p, v]) => v!.map((value) => put(d, p, value, textOf(p, value), d.body?.kind === 'json' || !p.inQuery ? 'body' : 'query')))
    .filter((x) => x.body !== undefined || x.query.length > 0);
};

/** Rules the schema cannot state: Register's name-or-email and password match, AutoQuery names. */
const brokenHandlerRule: Malformation = (d) => {
  const p = (name: string) => d.op.properties.get(name);
  const set = (name: string, v: unknown) => put(d, p(name)!, v, textOf(p(name)!, v), d.body?.kind === 'json' || !p(name)!.inQuery ? 'body' : 'query');
  if (d.op.path === '/register') {
    return fc.oneof(
      fc.constant(null).map(() => { const x = set('password', 'correct-horse-1'); return put(x, p('confirmPassword')!, 'correct-horse-2', 'correct-horse-2', 'body'); }),
      fc.constant(without(without(d, 'userName'), 'email')),
    );
  }
  if (d.op.path.startsWith('/json/reply/')) {
    // Every value holds a character no field name or Include item can contain.
    const hostile = fc.oneof(fc.constantFrom(...sqlInjections.filter((s) => /['";=]/.test(s))), fc.constantFrom('Nope', 'password_hash', 'Id desc', '-', 'Id,Nope', 'SUM(Id', 'COUNT(*) AS', 'MAX(Id) AS AS'));
    // An export (design.md §7) has no Include.
    const named = ['orderBy', 'orderByDesc', 'fields', 'include'].filter((n) => d.op.properties.has(n));
    const includes = d.op.properties.has('include')
      ? [fc.constant(set('include', Array.from({ length: 21 }, () => 'Total').join(','))), fc.constant(set('include', d.op.path.includes('Caratteristica') ? 'SUM(Descrizione)' : 'AVG(Recapito)'))]
      : [];
    return fc.oneof(fc.tuple(fc.constantFrom(...named), hostile).map(([name, v]) => set(name, v)), ...includes);
  }
  if (d.op.path === '/impianti/{ImpiantoId}/files') {
    const ids = fc.oneof(fc.constantFrom('0', '-1', 'abc', '2147483648', '1.5', '1e3', '%FF', '%00', '1%20OR%201=1', '0x1', '-0'), fc.constantFrom(...sqlInjections).map(pct));
    return ids.map((id) => ({ ...d, path: `/impianti/${id}/files` }));
  }
  // No user has these passwords (the one user's is random), so every sign-in fails.
  if (d.op.operationId === 'Authenticate') {
    return fc.tuple(fc.oneof(anyText, fc.constant('fuzzuser')), anyText).map(([u, pw]) => put(set('userName', u), p('password')!, pw, pw, 'body'));
  }
  if (d.op.operationId === 'GetAccessToken') {
    return fc.oneof(anyText, fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('base64url'))).map((tok) => set('refreshToken', tok));
  }
  return undefined;
};

const badBody: Malformation = (d) => {
  if (!inBody(d)) return undefined;
  const raw = (bytes: Buffer | string): Draft => ({ ...d, body: { kind: 'raw', bytes: Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'utf8') }, contentType: d.contentType === 'application/x-www-form-urlencoded' ? 'application/json' : d.contentType });
  const nested = (n: number, open: string, close: string) => open.repeat(n) + close.repeat(n);
  const small = fc.oneof(
    // Invalid UTF-8: a lone continuation byte, an overlong NUL, an encoded surrogate, 0xFF.
    fc.constantFrom([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d], [0x7b, 0xc0, 0x80, 0x7d], [0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d], [0xff, 0xfe, 0x7b, 0x7d]).map((b) => raw(Buffer.from(b))),
    fc.constantFrom('{', '{"a":}', "{'a':1}", '{"userName":"x",}', 'NaN', '{"take":01}', 'undefined', '{"a":1}{"b":2}', '[1,2', '"unterminated', '{"a":"\\x"}', '{"a":1e999999}x').map(raw),
    fc.constantFrom('[]', '[{"userName":"x"}]', '"x"', '1', 'true', 'null', '-0').map(raw),
    fc.integer({ min: 1000, max: 50_000 }).map((n) => raw(nested(n, '[', ']'))),
    fc.integer({ min: 1000, max: 50_000 }).map((n) => raw(`{"aaa":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`)),
    fc.tuple(fc.constantFrom(...props(d.op).map((p) => p.name), 'zz'), fc.integer({ min: 1000, max: 50_000 })).map(([k, n]) => raw(`{"${k}":${nested(n, '[', ']')}}`)),
    // Thousands of unknown keys: every one is reported, none may cost more than a moment.
    fc.integer({ min: 1000, max: 10_000 }).map((n) => raw(`{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`)),
  );
  // Over the 1 MiB limit: 413. Rare, as each one is a megabyte on the wire.
  const huge = fc.constant(null).map(() => raw(`{"a":"${'x'.repeat(1024 * 1024 + 1)}"}`));
  return fc.oneof({ weight: 20, arbitrary: small }, { weight: 1, arbitrary: huge });
};

const contentType: Malformation = (d) => {
  if (!inBody(d)) return undefined;
  return fc.tuple(fc.option(fc.constantFrom(...refusedContentTypes), { nil: undefined }), fc.oneof(anyText, fc.constant('{}'))).map(([type, text]) => ({
    ...d, body: { kind: 'raw', bytes: Buffer.from(text === '' ? '{}' : text, 'utf8') }, contentType: type,
  }));
};

/** Compressed bodies: corrupt streams, unsupported codings, and well-compressed malformed JSON. */
const contentEncoding: Malformation = (d) => {
  if (!inBody(d)) return undefined;
  const encoded = (enc: string, bytes: Uint8Array): Draft => ({
    ...d, body: { kind: 'raw', bytes: Buffer.from(bytes) }, contentType: 'application/json', headers: [...d.headers, ['Content-Encoding', enc] as const],
  });
  // A 0x00 first byte is neither the gzip magic (1f 8b) nor a zlib header (CM = 8): never a valid stream.
  const corrupt = fc.tuple(fc.constantFrom('gzip', 'deflate'), fc.uint8Array({ maxLength: 64 })).map(([enc, b]) => encoded(enc, Buffer.concat([Buffer.from([0, 0]), b])));
  const unsupported = fc.tuple(fc.constantFrom('x-unknown', 'compress', 'gzip, gzip', 'zstd'), fc.uint8Array({ minLength: 1, maxLength: 64 })).map(([enc, b]) => encoded(enc, b));
  const compress = { gzip: zlib.gzipSync, deflate: zlib.deflateSync, br: zlib.brotliCompressSync } as const;
  const wellCompressedBad = fc.tuple(fc.constantFrom<keyof typeof compress>('gzip', 'deflate', 'br'), fc.constantFrom('{"zz":1}', '[]', '{', '{"take":-1,"zz":[]}'))
    .map(([enc, text]) => encoded(enc, compress[enc](Buffer.from(text))));
  return fc.oneof(corrupt, unsupported, wellCompressedBad);
};

const negotiation: Malformation = (d) =>
  fc.oneof(
    fc.constantFrom('xml', 'html', '', 'JSON5', 'csv ', 'yaml', "json' OR 1=1").map((f): Draft => ({ ...d, query: [...d.query, ['format', f] as const] })),
    fc.constantFrom(...refusedAccepts).map((a): Draft => ({ ...d, headers: [...d.headers, ['Accept', a] as const] })),
    fc.constantFrom('.xml', '.html', '.JSONP').map((s): Draft => ({ ...d, suffix: s })),
    ...(d.op.csv ? [] : [fc.constantFrom('.csv', '.CSV').map((s): Draft => ({ ...d, suffix: s }))]),
  );

const hostileCallback: Malformation = (d) =>
  fc.tuple(fc.constantFrom('callback', 'CALLBACK', 'Callback'), fc.constantFrom(...hostileCallbacks)).map(([k, v]) => ({ ...d, query: [...d.query, [k, v] as const] }));

const authAttack = (t: Tokens): Malformation => (d) => {
  if (d.op.access.kind === 'public') return undefined;
  const weaker = d.op.access.roles.includes('Admin') ? [t.apiUser, t.noRole] : d.op.access.roles.length > 0 ? [t.noRole] : [];
  return fc.oneof(
    fc.constantFrom(...t.refused).map((tok) => `Bearer ${tok}`),
    fc.constantFrom('', 'Bearer', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', `Bearer ${t.admin} extra`, 'Token abc', `bearer${t.admin}`, `Bearer ${t.admin.slice(0, -2)}`),
    ...(weaker.length > 0 ? [fc.constantFrom(...weaker).map((tok) => `Bearer ${tok}`)] : []),
    fc.constant(undefined),
  ).map((authorization) => ({ ...d, authorization }));
};

const verbs = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const routing = (contract: Contract): Malformation => (d) => {
  const served = new Set([...contract.operations.values()].filter((o) => o.path === d.op.path).map((o) => o.method.toUpperCase()));
  const unknownPaths = fc.oneof(
    fc.constantFrom('/nope', '/admin', '/json/reply/', '/json/reply/Nope', '/json/reply/Register', '/impianti', '/impianti/1', '/impianti/1/files/2', '/.env', '/%2e%2e/%2e%2e/etc/passwd', '/json/reply/%FF', '/%00'),
    fc.constantFrom(...sqlInjections).map((s) => `/json/reply/${pct(s)}`),
  );
  return fc.oneof(
    fc.constantFrom(...verbs.filter((m) => !served.has(m))).map((m): Draft => ({ ...d, method: m })),
    unknownPaths.map((path): Draft => ({ ...d, method: 'GET', path, body: undefined })),
  );
};

/** Raw non-ASCII bytes in the request target: the files id is no integer, other paths name no route. */
const rawBytesInTarget: Malformation = (d) =>
  fc.constantFrom(0x80, 0xc3, 0xff, 0xfe).map((b): Draft => {
    const path = typeof d.path === 'string' ? d.path : d.path.toString('latin1');
    const [head, tail] = path.startsWith('/impianti/') ? [path.replace(/\/files$/, ''), '/files'] : [path, ''];
    return { ...d, path: Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from([b]), Buffer.from(tail, 'latin1')]) };
  });

const missingRequired = (contract: Contract): Malformation => (d) => {
  const required = requiredOf(contract, d.op);
  if (required.length === 0 || !inBody(d)) return undefined;
  return fc.constantFrom(...required).map((name) => without(d, name));
};

/** The `required` list of the operation's JSON body schema. */
function requiredOf(contract: Contract, op: OperationContract): string[] {
  const doc = contract.document as Record<string, unknown>;
  const resolve = (node: unknown): Record<string, unknown> => {
    const ref = (node as { $ref?: string } | undefined)?.$ref;
    if (!ref) return (node ?? {}) as Record<string, unknown>;
    return resolve(ref.slice(2).split('/').reduce<unknown>((n, k) => (n as Record<string, unknown>)[k], doc));
  };
  const operation = ((doc['paths'] as Record<string, Record<string, unknown>>)[op.path] ?? {})[op.method];
  const body = resolve((operation as Record<string, unknown> | undefined)?.['requestBody']);
  const schema = resolve((((body['content'] ?? {}) as Record<string, Record<string, unknown>>)['application/json'] ?? {})['schema']);
  return Array.isArray(schema['required']) ? (schema['required'] as string[]) : [];
}

const oversizedHeaders: Malformation = (d) =>
  fc.constantFrom(17_000, 40_000, 100_000).chain((n) => fc.oneof(
    fc.constant({ ...d, headers: [...d.headers, ['X-Big', 'x'.repeat(n)] as const] }),
    fc.constant({ ...d, query: [...d.query, ['zz', 'y'.repeat(n)] as const] }),
  ));

export function malformedRequests(contract: Contract, tokens: Tokens): fc.Arbitrary<FuzzCase> {
  const kinds: Array<[string, number, Malformation]> = [
    ['unknown-key', 6, unknownKey], ['wrong-type', 6, wrongType], ['repeated-scalar', 2, repeated], ['secret-in-query', 2, secretInQuery],
    ['schema-rule', 5, brokenRule], ['handler-rule', 5, brokenHandlerRule], ['bad-body', 3, badBody], ['content-type', 3, contentType],
    ['content-encoding', 1, contentEncoding], ['negotiation', 3, negotiation], ['hostile-callback', 3, hostileCallback],
    ['auth', 5, authAttack(tokens)], ['routing', 3, routing(contract)], ['missing-required', 2, missingRequired(contract)], ['raw-bytes', 1, rawBytesInTarget], ['oversized-headers', 1, oversizedHeaders],
  ];
  const skip = new Set((process.env['FUZZ_SKIP'] ?? '').split(',').filter(Boolean));
  // The canonical routes: a variant (suffix, predefined route) runs the same machinery,
  // and test/http/route-census.test.ts proves each reaches its operation.
  const ops = [...contract.operations.values()].filter((op) => op.operationId === op.canonicalId);
  return fc.constantFrom(...ops).chain((op) => base(op, tokens)).chain((d) => {
    const applicable = kinds.flatMap(([kind, weight, m]) => {
      const arb = skip.has(kind) ? undefined : m(d);
      return arb ? [{ weight, arbitrary: arb.map((x) => [kind, x] as const) }] : [];
    });
    return fc.tuple(fc.oneof(...applicable), fc.option(fc.constantFrom(...validCallbacks), { freq: 6, nil: undefined }));
  }).map(([[kind, d], cb]) => {
    // A callback turns any answer into JSON, which would undo an unacceptable Accept; and
    // a second callback would hide the hostile one.
    const callback = kind === 'hostile-callback' || (kind === 'negotiation' && d.headers.some(([h]) => h === 'Accept')) ? undefined : cb;
    const withCallback: Draft = callback ? { ...d, query: [...d.query, ['callback', callback]] } : d;
    return { kind, operationId: d.op.operationId, request: build(withCallback), callback };
  });
}
