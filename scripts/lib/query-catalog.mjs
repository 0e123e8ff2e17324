// Turns the validated tables into the whitelist of generated/query-catalog.ts: per DTO its
// fields (with JSON names) and one filter per (field, operator) pair the operator table
// allows for the field's family, in field order then table order.
import { camelCase } from './naming.mjs';

/** The trigram table of a field (design.md §8, "Substring index"): every string field that takes Contains, unless the table says `substringIndex: false`. */
function substringIndexOf(dto, f, operators) {
  const served = operators.some((op) => op.kind === 'contains' && op.families.includes(f.family));
  return f.family === 'string' && served && f.substringIndex !== false ? `${dto.table}_${f.column}_trigrams` : undefined;
}

function buildDto(dto, operators) {
  const fields = dto.fields.map((f) => {
    const substringIndex = substringIndexOf(dto, f, operators);
    return {
      name: f.name,
      property: camelCase(f.name),
      column: f.column,
      family: f.family,
      nullable: f.nullable,
      ...(f.length !== undefined ? { length: f.length } : {}),
      ...(substringIndex !== undefined ? { substringIndex } : {}),
    };
  });
  const filters = fields.flatMap((field) =>
    operators
      .filter((op) => op.families.includes(field.family))
      .map((op) => ({
        name: `${field.name}${op.suffix}`,
        property: `${field.property}${op.suffix}`,
        field: field.name,
        operator: op.kind,
      })),
  );
  return {
    operation: dto.operation,
    record: dto.record,
    table: dto.table,
    // The first field is the key that closes every ORDER BY (spec/query-dtos.yaml).
    primaryKey: fields[0].name,
    fields,
    filters,
  };
}

/**
 * @returns { operators, limits, paging, families, queryDtos: QueryDtoSpec[] } in spec order;
 * `paging` (Take's maximum) is the contract's alone, so the whitelist does not carry it.
 */
export function buildCatalog(inputs) {
  const operators = inputs.operators.map((op) => ({
    kind: op.kind,
    suffix: op.suffix,
    arity: op.arity,
    families: [...op.families],
    text: op.text,
  }));
  return {
    operators,
    limits: { inMaxItems: inputs.limits.inMaxItems, stringMaxLength: inputs.limits.stringMaxLength },
    paging: { takeMaximum: inputs.limits.takeMaximum },
    families: inputs.families,
    queryDtos: inputs.dtos.map((dto) => buildDto(dto, operators)),
  };
}
