// Which substring index serves a field's filters: its name and the table's key, worked out
// once per field of the catalog (the renderer asks on every request).
import { substringIndexName } from '../db/substring-index.js';
import type { FieldSpec, QueryDtoSpec } from './catalog-types.js';
import type { ServedBy } from './render-conditions.js';

const known = new WeakMap<FieldSpec, ServedBy | null>();

/** The field's substring index, or undefined when the catalog gives it none (`substringIndex`). */
export function servedBy(dto: QueryDtoSpec, field: FieldSpec): ServedBy | undefined {
  let entry = known.get(field);
  if (entry === undefined) {
    const key = dto.fields.find((f) => f.name === dto.primaryKey)?.column;
    entry = field.substringIndex === true && key !== undefined ? Object.freeze({ name: substringIndexName(dto.table, field.column), key }) : null;
    known.set(field, entry);
  }
  return entry ?? undefined;
}
