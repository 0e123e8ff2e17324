// Deterministic examples for a query operation's request and responses, derived from the
// DTO's fields so they always validate against the generated schemas.

const sampleValue = (field, index) =>
  ({ integer: index + 1, string: `Esempio ${field.name}`, boolean: false })[field.family];

/** One record holding every field. */
export function recordExample(dto) {
  return Object.fromEntries(dto.fields.map((f, i) => [f.property, sampleValue(f, i)]));
}

/** A request like the seed's sample: an `In` list on the key and a `Like` on a string field. */
export function requestExample(dto) {
  const example = {};
  const key = dto.fields[0];
  if (dto.filters.some((f) => f.property === `${key.property}In`)) example[`${key.property}In`] = [1, 2, 3];
  const like = dto.filters.find((f) => f.operator === 'like');
  if (like) example[like.property] = '%esempio%';
  return { ...example, skip: 0, take: 10, orderByDesc: key.name, include: 'Total' };
}

/**
 * An export's request: an `In` list on the key, which matches rows of `make run`'s demo data,
 * and its order; no paging or `include`, which an export does not take.
 */
export function exportRequestExample(dto) {
  const key = dto.fields[0];
  const example = {};
  if (dto.filters.some((f) => f.property === `${key.property}In`)) example[`${key.property}In`] = [1, 2, 3];
  return { ...example, orderByDesc: key.name };
}

export function responseExample(dto) {
  return { offset: 0, total: 1, results: [recordExample(dto)] };
}

/** design.md §2: header of PascalCase names, CRLF line ends. */
export function csvExample(dto) {
  const record = recordExample(dto);
  const header = dto.fields.map((f) => f.name).join(',');
  const row = dto.fields.map((f) => String(record[f.property])).join(',');
  return `${header}\r\n${row}\r\n`;
}
