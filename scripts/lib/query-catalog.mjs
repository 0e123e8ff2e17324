// Turns the validated tables into the whitelist of generated/query-catalog.ts: per DTO its
// fields (with JSON names) and one filter per (field, operator) pair the operator table
// allows for the field's family, in field order then table order.
import { camelCase } from './naming.mjs';

function buildDto(dto, operators) {
  const fields = dto.fields.map((f) => ({
    name: f.name,
    property: camelCase(f.name),
    column: f.column,
    family: f.family,
    nullable: f.nullable,
    ...(f.length !== undefined ? { length: f.length } : {}),
  }));
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
