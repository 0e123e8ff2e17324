// Stage 1 of the engine: the request DTO as the edge delivers it, split into filter
// candidates and paging/shaping parameters. Names stay as written and values stay
// untyped: resolving them against the whitelist is the planner's job, so that every
// failure can be gathered in one pass rather than stopping at the first.
import { ApiError, fail, ok, type Result } from '../errors/api-error.js';

/** A request property as sent: its key (any case) and its raw value. */
export interface RawParam {
  readonly name: string;
  readonly value: unknown;
}

/** The paging and shaping parameters of design.md §7, keyed by their canonical camelCase name. */
export const shapingParams = ['skip', 'take', 'after', 'orderBy', 'orderByDesc', 'fields', 'include', 'meta'] as const;
export type ShapingParam = (typeof shapingParams)[number];

export interface QueryRequest {
  readonly kind: 'request';
  /** Every property that is not a shaping parameter: a filter, or an unknown name. */
  readonly filters: readonly RawParam[];
  readonly shaping: Readonly<Partial<Record<ShapingParam, RawParam>>>;
}

const shapingByLower = new Map<string, ShapingParam>(shapingParams.map((p) => [p.toLowerCase(), p]));

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Splits the DTO. Names match case-insensitively (design.md §1); a property sent as
 * null counts as absent. Fails only when the DTO is not an object at all.
 */
export function parse(dto: unknown): Result<QueryRequest> {
  if (!isPlainObject(dto)) return fail(ApiError.field('InvalidType', 'Request', 'The request must be a JSON object'));
  const filters: RawParam[] = [];
  const shaping: Partial<Record<ShapingParam, RawParam>> = {};
  // for-in rather than Object.entries, which makes a pair array per property.
  for (const name in dto) {
    if (!Object.hasOwn(dto, name)) continue;
    const value = dto[name];
    if (value === null || value === undefined) continue;
    const param = shapingByLower.get(name.toLowerCase());
    if (param) shaping[param] = { name, value };
    else filters.push({ name, value });
  }
  return ok(Object.freeze({ kind: 'request', filters: Object.freeze(filters), shaping: Object.freeze(shaping) }));
}
