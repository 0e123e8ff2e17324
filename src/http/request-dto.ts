// Turns what came over the wire into the request DTO (design.md §1): names matched
// case-insensitively, query and form strings converted to their schema types, JSON
// values checked against them, unknown names refused. Body wins; the query string
// fills what the body left out. This is the deserialization stage: it reports type
// errors (InvalidType, UnknownField), the rule stage comes after.
import { ApiError, pascal, type FieldError, type Result, ok, fail } from '../errors/api-error.js';
import type { DtoProperty, OperationContract, ValueType } from './contract.js';
import { int32Range, isInt32 } from '../int32.js';

export type Body =
  | { readonly kind: 'none' }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'form'; readonly pairs: readonly (readonly [string, string])[] };

/** Query parameters the edge itself consumes; never DTO properties. `_` is jQuery's JSONP cache-buster. */
export const edgeParams = new Set(['format', 'callback', '_']);


export function buildDto(
  op: OperationContract,
  pathParams: Readonly<Record<string, string>>,
  query: readonly (readonly [string, string])[],
  body: Body,
): Result<Record<string, unknown>> {
  const dto: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  const unknown = (name: string) => errors.push({ errorCode: 'UnknownField', fieldName: name, message: `'${name}' is not a property of ${op.dtoName}` });

  for (const name in pathParams) {
    const raw = pathParams[name]!;
    const prop = op.properties.get(op.byLowerName.get(name.toLowerCase()) ?? '');
    if (prop) assign(dto, errors, prop, fromStrings(prop, [raw]));
  }

  // What the body sent, which the query string then cannot override; kept only when there is a query string.
  const fromBody = query.length > 0 ? new Set<string>() : undefined;
  if (body.kind === 'json') {
    if (body.value === null || typeof body.value !== 'object' || Array.isArray(body.value)) {
      return fail(ApiError.of('SerializationException', 'The request body must be a JSON object'));
    }
    const sent = body.value as Record<string, unknown>;
    // for-in rather than Object.entries: a parsed JSON object has only its own properties, and no pair array is made per property.
    for (const name in sent) {
      const prop = lookup(op, name);
      if (!prop || prop.inPath) { unknown(name); continue; }
      fromBody?.add(prop.name);
      const value = sent[name];
      if (value !== null) assign(dto, errors, prop, fromJson(prop, value));
    }
  } else if (body.kind === 'form') {
    for (const [prop, sent] of group(op, body.pairs, unknown)) {
      if (prop.inPath) { unknown(prop.name); continue; }
      fromBody?.add(prop.name);
      assign(dto, errors, prop, fromSent(prop, sent));
    }
  }

  if (query.length === 0) return outcome(dto, errors);
  const queryPairs = query.filter(([k]) => !edgeParams.has(k.toLowerCase()));
  for (const [prop, sent] of group(op, queryPairs, unknown)) {
    if (prop.inPath) { unknown(prop.name); continue; }
    if (!prop.inQuery) {
      // Secrets in a URL end up in logs, proxies and browser history (design.md §5).
      errors.push({ errorCode: 'InvalidValue', fieldName: pascal(prop.name), message: `${pascal(prop.name)} must be sent in the request body, not the query string` });
      continue;
    }
    if (fromBody?.has(prop.name)) continue;
    assign(dto, errors, prop, fromSent(prop, sent));
  }
  return outcome(dto, errors);
}

const outcome = (dto: Record<string, unknown>, errors: readonly FieldError[]): Result<Record<string, unknown>> =>
  errors.length > 0 ? fail(ApiError.validation(errors)) : ok(dto);

function lookup(op: OperationContract, name: string): DtoProperty | undefined {
  const canonical = op.byLowerName.get(name.toLowerCase());
  return canonical === undefined ? undefined : op.properties.get(canonical);
}

/** Texts sent under a property's name, and `name[key]=value` entries of an object property. */
interface Sent {
  readonly texts: string[];
  readonly entries: Array<[string, string]>;
}

// `meta[source]=web`: the deepObject style generated clients use for an object (design.md §1).
const deepKey = /^([^[\]]+)\[([^[\]]*)\]$/;

/** Groups repeated keys (in any letter case) under their property. */
function group(op: OperationContract, pairs: readonly (readonly [string, string])[], unknown: (n: string) => void): Map<DtoProperty, Sent> {
  const out = new Map<DtoProperty, Sent>();
  const reported = new Set<string>();
  const sentTo = (prop: DtoProperty): Sent => {
    let sent = out.get(prop);
    if (!sent) out.set(prop, (sent = { texts: [], entries: [] }));
    return sent;
  };
  for (const [name, value] of pairs) {
    const deep = deepKey.exec(name);
    const objectProp = deep ? lookup(op, deep[1]!) : undefined;
    if (deep && objectProp?.type === 'object') {
      sentTo(objectProp).entries.push([deep[2]!, value]);
      continue;
    }
    const prop = lookup(op, name);
    if (!prop) {
      if (!reported.has(name)) unknown(name);
      reported.add(name);
      continue;
    }
    sentTo(prop).texts.push(value);
  }
  return out;
}

function fromSent(prop: DtoProperty, sent: Sent): Converted {
  if (sent.entries.length === 0) return fromStrings(prop, sent.texts);
  if (sent.texts.length > 0) return bad('sent both as JSON text and as [key] pairs');
  const entries = new Map<string, string>();
  for (const [key, value] of sent.entries) {
    if (entries.has(key)) return bad(`[${key}] sent more than once`);
    entries.set(key, value);
  }
  return stringMap(Object.fromEntries(entries));
}

type Converted = { ok: true; value: unknown } | { ok: false; message: string };
const bad = (message: string): Converted => ({ ok: false, message });

function assign(dto: Record<string, unknown>, errors: FieldError[], prop: DtoProperty, c: Converted): void {
  if (c.ok) dto[prop.name] = c.value;
  else errors.push({ errorCode: 'InvalidType', fieldName: pascal(prop.name), message: `${pascal(prop.name)}: ${c.message}` });
}

// ---- JSON values must already have their JSON type ------------------------------------

function fromJson(prop: DtoProperty, value: unknown): Converted {
  if (prop.type === 'array') {
    if (!Array.isArray(value)) return bad(`expected an array of ${prop.items}`);
    const items: unknown[] = [];
    for (const item of value) {
      const c = jsonScalar(prop.items ?? 'string', item);
      if (!c.ok) return bad(`every item ${c.message.replace(/^expected/, 'must be')}`);
      items.push(c.value);
    }
    return { ok: true, value: items };
  }
  if (prop.type === 'object') return stringMap(value);
  return jsonScalar(prop.type, value);
}

function jsonScalar(type: ValueType, value: unknown): Converted {
  switch (type) {
    case 'integer':
      return isInt32(value) ? { ok: true, value } : bad(`expected ${int32Range}`);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? { ok: true, value } : bad('expected a number');
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : bad('expected true or false');
    case 'string':
      return typeof value === 'string' ? { ok: true, value } : bad('expected a string');
    default:
      return bad(`expected ${type}`);
  }
}

function stringMap(value: unknown): Converted {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return bad('expected an object of string values');
  for (const v of Object.values(value)) if (typeof v !== 'string') return bad('expected an object of string values');
  // A null-prototype copy: keys like __proto__ stay plain data.
  return { ok: true, value: Object.assign(Object.create(null) as object, value) };
}

// ---- query-string and form values are text, converted per the schema -------------------

function fromStrings(prop: DtoProperty, values: readonly string[]): Converted {
  if (prop.type === 'array') {
    const items: unknown[] = [];
    for (const raw of values) {
      const parts = splitList(raw);
      if (!parts.ok) return parts;
      for (const part of parts.value as unknown[]) {
        const c = typeof part === 'string' ? textScalar(prop.items ?? 'string', part) : jsonScalar(prop.items ?? 'string', part);
        if (!c.ok) return bad(`every item ${c.message.replace(/^expected/, 'must be')}`);
        items.push(c.value);
      }
    }
    return { ok: true, value: items };
  }
  if (values.length > 1) return bad('sent more than once');
  const raw = values[0] ?? '';
  if (prop.type === 'object') {
    try {
      return stringMap(JSON.parse(raw));
    } catch {
      return bad('expected a JSON object text like {"key":"value"}');
    }
  }
  return textScalar(prop.type, raw);
}

/** `1,2,3`, or a JSON array `["a,b","c"]` for items that contain commas; empty text is the empty list. */
function splitList(raw: string): Converted {
  if (raw === '') return { ok: true, value: [] };
  if (raw.trimStart().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (Array.isArray(parsed)) return { ok: true, value: parsed };
    } catch {
      /* fall through */
    }
    return bad('expected a JSON array like ["a","b"]');
  }
  return { ok: true, value: raw.split(',') };
}

function textScalar(type: ValueType, raw: string): Converted {
  switch (type) {
    case 'integer': {
      if (!/^[+-]?\d{1,10}$/.test(raw.trim())) return bad(`expected ${int32Range}`);
      const n = Number(raw.trim());
      return isInt32(n) ? { ok: true, value: n } : bad(`expected ${int32Range}`);
    }
    case 'number': {
      const n = Number(raw);
      return raw.trim() !== '' && Number.isFinite(n) ? { ok: true, value: n } : bad('expected a number');
    }
    case 'boolean': {
      const t = raw.trim().toLowerCase();
      if (t === 'true' || t === '1') return { ok: true, value: true };
      if (t === 'false' || t === '0') return { ok: true, value: false };
      return bad('expected true, false, 1 or 0');
    }
    case 'string':
      return { ok: true, value: raw };
    default:
      return bad(`expected ${type}`);
  }
}
