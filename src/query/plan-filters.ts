// Planner pass: resolves filter properties against the DTO's whitelist into typed
// conditions. The operator table decides arity and families; no per-operator branches
// here except the small table of extra value rules below.
import { collect, ok, type Result } from '../errors/api-error.js';
import type { FieldSpec, FilterSpec, OperatorKind, OperatorSpec, QueryDtoSpec } from './catalog-types.js';
import { endsWithLoneEscape } from './like.js';
import type { Condition, Scalar } from './plan-types.js';
import { invalid, valuesOf } from './plan-values.js';
import type { RawParam } from './request.js';

/** Checks an operator needs beyond type and arity; a message means InvalidValue. */
const extraRules: Partial<Record<OperatorKind, (values: readonly Scalar[]) => string | undefined>> = {
  like: (values) =>
    values.some((v) => typeof v === 'string' && endsWithLoneEscape(v)) ? 'ends with a lone escape character \\' : undefined,
};

export interface FilterIndex {
  readonly byName: ReadonlyMap<string, { readonly filter: FilterSpec; readonly field: FieldSpec; readonly op: OperatorSpec }>;
}

/** Built once per DTO: lower-cased parameter name -> filter, field and operator. */
export function filterIndex(dto: QueryDtoSpec, operators: readonly OperatorSpec[]): FilterIndex {
  const ops = new Map(operators.map((o) => [o.kind, o]));
  const fields = new Map(dto.fields.map((f) => [f.name, f]));
  const byName = new Map<string, { filter: FilterSpec; field: FieldSpec; op: OperatorSpec }>();
  for (const filter of dto.filters) {
    const op = ops.get(filter.operator);
    const field = fields.get(filter.field);
    // A filter whose operator or field the catalog lacks, or whose family the operator
    // does not serve, is left out: it can never be planned, so it is an unknown name.
    if (op && field && op.families.includes(field.family)) byName.set(filter.name.toLowerCase(), { filter, field, op });
  }
  return { byName };
}

function resolveOne(param: RawParam, index: FilterIndex): Result<Condition> {
  const entry = index.byName.get(param.name.toLowerCase());
  if (!entry) return invalid('UnknownField', param.name, `'${param.name}' is not a property of this query`);
  const { filter, field, op } = entry;
  const values = valuesOf[op.arity](param.value, filter.name, field.family);
  if (!values.ok) return values;
  const broken = extraRules[op.kind]?.(values.value);
  if (broken) return invalid('InvalidValue', filter.name, `'${filter.name}' ${broken}`);
  return ok(Object.freeze({ kind: 'condition', field, operator: op.kind, values: Object.freeze(values.value) }));
}

export function planFilters(params: readonly RawParam[], index: FilterIndex): Result<Condition[]> {
  return collect(params.map((p) => resolveOne(p, index)));
}
