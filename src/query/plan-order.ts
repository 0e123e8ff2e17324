// Planner passes: ORDER BY terms and the projection (Fields). Names are matched
// case-insensitively; an unknown one is refused (design.md §7, unlike ServiceStack).
import { collect, ok, type Result } from '../errors/api-error.js';
import type { FieldSpec, QueryDtoSpec } from './catalog-types.js';
import type { EngineContext } from './engine-context.js';
import type { OrderTerm } from './plan-types.js';
import { memoPass } from './plan-memo.js';
import { commaList, invalid } from './plan-values.js';
import type { QueryRequest } from './request.js';

/** Each DTO's fields by lower-case name, built once: a lookup then lower-cases only the name asked for. */
const fieldsByName = new WeakMap<QueryDtoSpec, ReadonlyMap<string, FieldSpec>>();

export function fieldByName(dto: QueryDtoSpec, name: string): FieldSpec | undefined {
  let fields = fieldsByName.get(dto);
  if (fields === undefined) {
    const byName = new Map<string, FieldSpec>();
    // The first field of a name wins, as a search of the list would find it.
    for (const f of [...dto.fields].reverse()) byName.set(f.name.toLowerCase(), f);
    fieldsByName.set(dto, (fields = byName));
  }
  return fields.get(name.toLowerCase());
}

type Term = { readonly field: FieldSpec; readonly desc: boolean };

/** One parameter's terms; `descByDefault` is true for OrderByDesc, where `-` flips to ascending. */
function terms(dto: QueryDtoSpec, raw: unknown, name: string, descByDefault: boolean, ctx: EngineContext): Result<Term[]> {
  if (raw === undefined) return ok([]);
  const list = commaList(raw, name);
  if (!list.ok) return list;
  return collect(
    list.value.map((item): Result<Term> => {
      const flipped = item.startsWith('-');
      const fieldName = flipped ? item.slice(1).trim() : item;
      const field = fieldByName(dto, fieldName);
      if (!field) return invalid('InvalidValue', name, `'${name}' names an unknown field '${fieldName}'`);
      return ok({ field, desc: descByDefault !== flipped });
    }),
  );
}

/**
 * OrderBy terms, then OrderByDesc terms; a field named again is ignored. The key closes the
 * order in the direction of its last term, so the index on a field (which holds the key
 * after the field) serves the order forwards or backwards (design.md §7).
 */
export function planOrder(request: QueryRequest, dto: QueryDtoSpec, ctx: EngineContext): Result<readonly OrderTerm[]> {
  const by = request.shaping.orderBy?.value;
  const byDesc = request.shaping.orderByDesc?.value;
  // The usual requests: no order, or one of the two as a text (plan-memo.ts).
  if (byDesc === undefined) {
    if (by === undefined) return defaultOrder('', dto, ctx);
    if (typeof by === 'string') return orderByText(by, dto, ctx);
  } else if (by === undefined && typeof byDesc === 'string') {
    return orderByDescText(byDesc, dto, ctx);
  }
  return orderOf(by, byDesc, dto, ctx);
}

const defaultOrder = memoPass((_text, dto, ctx) => orderOf(undefined, undefined, dto, ctx));
const orderByText = memoPass((text, dto, ctx) => orderOf(text, undefined, dto, ctx));
const orderByDescText = memoPass((text, dto, ctx) => orderOf(undefined, text, dto, ctx));

function orderOf(by: unknown, byDesc: unknown, dto: QueryDtoSpec, ctx: EngineContext): Result<readonly OrderTerm[]> {
  const both = collect([terms(dto, by, 'OrderBy', false, ctx), terms(dto, byDesc, 'OrderByDesc', true, ctx)]);
  if (!both.ok) return both;
  const key = dto.fields.find((f) => f.name === dto.primaryKey) ?? dto.fields[0]!;
  const order: OrderTerm[] = [];
  const add = (t: Term) => {
    if (!order.some((o) => o.field === t.field)) order.push(Object.freeze({ kind: 'order', field: t.field, desc: t.desc }));
  };
  for (const t of both.value.flat()) add(t);
  add({ field: key, desc: order.at(-1)?.desc ?? false });
  return ok(Object.freeze(order));
}

/** The selected fields: Fields order, duplicates dropped; all fields in spec order when absent or empty. */
export function planProjection(request: QueryRequest, dto: QueryDtoSpec, ctx: EngineContext): Result<readonly FieldSpec[]> {
  const raw = request.shaping.fields?.value;
  if (raw === undefined) return allFields('', dto, ctx);
  return typeof raw === 'string' ? fieldsText(raw, dto, ctx) : projectionOf(raw, dto, ctx);
}

const allFields = memoPass((_text, dto) => ok(Object.freeze([...dto.fields])));
const fieldsText = memoPass((text, dto, ctx) => projectionOf(text, dto, ctx));

function projectionOf(raw: unknown, dto: QueryDtoSpec, ctx: EngineContext): Result<readonly FieldSpec[]> {
  const list = commaList(raw, 'Fields');
  if (!list.ok) return list;
  const resolved = collect(
    list.value.map((name): Result<FieldSpec> => {
      const field = fieldByName(dto, name);
      return field ? ok(field) : invalid('InvalidValue', 'Fields', `'Fields' names an unknown field '${name}'`);
    }),
  );
  if (!resolved.ok) return resolved;
  const unique = [...new Set(resolved.value)];
  return ok(Object.freeze(unique.length > 0 ? unique : [...dto.fields]));
}
