// Planner pass: Include = `Total`, `EstimatedTotal` and aggregates (design.md §7). Grammar, all names
// case-insensitive:  FN ( * | [DISTINCT] Field ) [ [AS] Alias ]  with FN one of COUNT,
// MIN, MAX, FIRST, LAST, SUM, AVG; `*` and DISTINCT only with COUNT; SUM and AVG only
// of integer fields. Every failure names `Include`.
import { collect, ok, type Result } from '../errors/api-error.js';
import type { QueryDtoSpec } from './catalog-types.js';
import type { EngineContext } from './engine-context.js';
import { fieldByName } from './plan-order.js';
import type { Aggregate, AggregateFn } from './plan-types.js';
import { memoPass } from './plan-memo.js';
import { commaList, invalid } from './plan-values.js';
import type { QueryRequest } from './request.js';

const NAME = 'Include';
/** The items that are counts of the whole filter rather than aggregates. */
const counts = new Set(['total', 'estimatedtotal']);
const item = /^(\w+)\s*\(\s*(?:(distinct)\s+)?([^()\s]+)\s*\)(?:\s+(?:as\s+)?([A-Za-z_]\w*))?$/i;

/** Per function: whether it takes `*`, DISTINCT, only integer fields; and the plan fn. */
const functions: Record<string, { star: boolean; distinct: boolean; integerOnly: boolean; fn: AggregateFn }> = {
  count: { star: true, distinct: true, integerOnly: false, fn: 'count' },
  min: { star: false, distinct: false, integerOnly: false, fn: 'min' },
  max: { star: false, distinct: false, integerOnly: false, fn: 'max' },
  first: { star: false, distinct: false, integerOnly: false, fn: 'first' },
  last: { star: false, distinct: false, integerOnly: false, fn: 'last' },
  sum: { star: false, distinct: false, integerOnly: true, fn: 'sum' },
  avg: { star: false, distinct: false, integerOnly: true, fn: 'avg' },
};

function aggregate(text: string, dto: QueryDtoSpec): Result<Aggregate> {
  const m = item.exec(text);
  const spec = m ? Object.hasOwn(functions, m[1]!.toLowerCase()) && functions[m[1]!.toLowerCase()] : undefined;
  if (!m || !spec) return invalid('InvalidValue', NAME, `'${NAME}' item '${text}' is not Total or an aggregate like MAX(Field)`);
  const [, , distinct, arg, alias] = m;
  // `MAX(Id) AS` is an alias left out, not an alias named AS.
  if (alias?.toLowerCase() === 'as') return invalid('InvalidValue', NAME, `'${NAME}' item '${text}' has AS without an alias`);
  const key = alias ?? text;
  if (arg === '*') {
    return spec.star && !distinct
      ? ok(Object.freeze({ kind: 'aggregate', fn: spec.fn, field: undefined, key }))
      : invalid('InvalidValue', NAME, `'${NAME}' item '${text}': only COUNT(*) takes *`);
  }
  if (distinct && !spec.distinct) return invalid('InvalidValue', NAME, `'${NAME}' item '${text}': only COUNT takes DISTINCT`);
  const field = fieldByName(dto, arg!);
  if (!field) return invalid('InvalidValue', NAME, `'${NAME}' item '${text}' names an unknown field '${arg}'`);
  if (spec.integerOnly && field.family !== 'integer') {
    return invalid('InvalidValue', NAME, `'${NAME}' item '${text}': ${m[1]} takes integer fields only`);
  }
  return ok(Object.freeze({ kind: 'aggregate', fn: distinct ? 'countDistinct' : spec.fn, field, key }));
}

export interface IncludePlan {
  readonly total: boolean;
  readonly estimatedTotal: boolean;
  readonly aggregates: readonly Aggregate[];
}

export function planInclude(request: QueryRequest, dto: QueryDtoSpec, ctx: EngineContext): Result<IncludePlan> {
  const raw = request.shaping.include;
  if (raw === undefined) return noInclude('', dto, ctx);
  return typeof raw.value === 'string' ? includeOfText(raw.value, dto, ctx) : includeOf(raw.value, dto, ctx);
}

const noInclude = memoPass((_text, _dto, ctx) => ok(Object.freeze({ total: ctx.includeTotal, estimatedTotal: false, aggregates: Object.freeze([]) })));

function includeOf(value: unknown, dto: QueryDtoSpec, ctx: EngineContext): Result<IncludePlan> {
  const list = commaList(value, NAME);
  if (!list.ok) return list;
  if (list.value.length > ctx.includeMaxItems) {
    return invalid('TooMany', NAME, `'${NAME}' takes at most ${ctx.includeMaxItems} items, got ${list.value.length}`);
  }
  const named = (word: string) => list.value.some((t) => t.toLowerCase() === word);
  const aggregates = collect(list.value.filter((t) => !counts.has(t.toLowerCase())).map((t) => aggregate(t, dto)));
  if (!aggregates.ok) return aggregates;
  return ok(Object.freeze({ total: ctx.includeTotal || named('total'), estimatedTotal: named('estimatedtotal'), aggregates: Object.freeze(aggregates.value) }));
}

const includeOfText = memoPass(includeOf);
