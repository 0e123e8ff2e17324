// A fuzz request before it is turned into bytes: the operation it aims at, where each
// property goes (JSON body, form body, query string), headers and token. Malformations
// edit drafts; build() writes the bytes, so every malformation stays a small pure edit.
import fc from 'fast-check';
import type { DtoProperty, OperationContract } from '../../../src/http/contract.js';
import { anyText } from './hostile-values.js';
import type { RawRequest } from './raw-http.js';

export type BodyDraft =
  | { readonly kind: 'json'; readonly value: Readonly<Record<string, unknown>> }
  | { readonly kind: 'form'; readonly pairs: readonly (readonly [string, string])[] }
  | { readonly kind: 'raw'; readonly bytes: Buffer };

export interface Draft {
  readonly op: OperationContract;
  readonly method: string;
  /** Path as sent (already percent-encoded where needed), without suffix or query. */
  readonly path: string | Buffer;
  readonly suffix: string;
  readonly query: readonly (readonly [string, string])[];
  readonly body: BodyDraft | undefined;
  readonly contentType: string | undefined;
  readonly authorization: string | undefined;
  readonly headers: readonly (readonly [string, string])[];
}

export interface Tokens {
  /** Right signature and claims, per role set. */
  readonly admin: string;
  readonly apiUser: string;
  readonly noRole: string;
  /** Tokens every protected operation must refuse with 401. */
  readonly refused: readonly string[];
}

/** Percent-encodes the UTF-8 bytes of `s` (lone surrogates become U+FFFD, as a browser would send). */
export function pct(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    // Lone surrogates: encode the bytes Buffer writes for them (EF BF BD).
  }
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) out += /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** An object whose keys are all own data properties, `__proto__` included, so JSON.stringify writes them. */
export function ownObject(entries: Iterable<readonly [string, unknown]>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

export function build(d: Draft): RawRequest {
  const query = d.query.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&');
  const tail = Buffer.from(`${d.suffix}${query ? `?${query}` : ''}`, 'latin1');
  const target = Buffer.concat([typeof d.path === 'string' ? Buffer.from(d.path, 'latin1') : d.path, tail]);
  const headers: Array<[string, string]> = [];
  if (d.authorization !== undefined) headers.push(['Authorization', d.authorization]);
  let body: Buffer | undefined;
  if (d.body?.kind === 'json') body = Buffer.from(JSON.stringify(d.body.value), 'utf8');
  else if (d.body?.kind === 'form') body = Buffer.from(d.body.pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&'), 'latin1');
  else if (d.body?.kind === 'raw') body = d.body.bytes;
  if (body !== undefined && d.contentType !== undefined) headers.push(['Content-Type', d.contentType]);
  return { method: d.method, target, headers: [...headers, ...d.headers], body };
}

// ---- well-typed values, the base every malformation edits ------------------------------

const int32 = fc.oneof(fc.constantFrom(-2147483648, -1, 0, 1, 2, 5, 100, 2147483647), fc.integer({ min: -2147483648, max: 2147483647 }));

export function valueOf(p: DtoProperty): fc.Arbitrary<unknown> {
  // The one existing user, so that sign-in and role changes reach the database.
  if (p.name === 'userName') return fc.oneof(anyText, fc.constantFrom('fuzzuser', 'FUZZUSER'));
  switch (p.type) {
    case 'integer': return int32;
    case 'number': return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean': return fc.boolean();
    case 'string': return anyText;
    case 'array': return p.items === 'integer' ? fc.array(int32, { maxLength: 4 }) : fc.array(anyText, { maxLength: 4 });
    case 'object': return fc.array(fc.tuple(fc.oneof(anyText, fc.constantFrom('__proto__', 'constructor', 'roles')), anyText), { maxLength: 4 }).map(ownObject);
  }
}

/** The text a query string or form carries for a well-typed value. */
export function textOf(p: DtoProperty, v: unknown): string {
  if (p.type === 'array') {
    const items = v as unknown[];
    return items.every((i) => typeof i === 'number') ? items.join(',') : JSON.stringify(items);
  }
  if (p.type === 'object') return JSON.stringify(v);
  return String(v);
}

/** The draft without property `name` (any letter case) in body or query. */
export function without(d: Draft, name: string): Draft {
  const other = (k: string) => k.toLowerCase() !== name.toLowerCase();
  const body = d.body?.kind === 'json' ? { kind: 'json' as const, value: ownObject(Object.entries(d.body.value).filter(([k]) => other(k))) }
    : d.body?.kind === 'form' ? { kind: 'form' as const, pairs: d.body.pairs.filter(([k]) => other(k)) } : d.body;
  return { ...d, body, query: d.query.filter(([k]) => other(k)) };
}

/** Sets `p` in the body (when the draft has a JSON or form body) or else in the query, removing it elsewhere. */
export function put(d: Draft, p: DtoProperty, value: unknown, text: string, where: 'body' | 'query' = d.body ? 'body' : 'query'): Draft {
  const x = without(d, p.name);
  const body = x.body;
  if (where === 'query' || !body || body.kind === 'raw') return { ...x, query: [...x.query, [p.name, text]] };
  if (body.kind === 'json') return { ...x, body: { kind: 'json', value: ownObject([...Object.entries(body.value), [p.name, value]]) } };
  return { ...x, body: { kind: 'form', pairs: [...body.pairs, [p.name, text]] } };
}
