// Deterministic examples for a query operation's request and responses, derived from the
// DTO's fields so they always validate against the generated schemas. A query's path item
// may name a record of `make run`'s demo data (`x-example-record`): the answers' example is
// then that record, and every filter's example matches it, so the examples sent together
// (as Swagger UI's "Try it out" fills them all in) find it on a demo server (design.md §2).

const sampleValue = (field, index) =>
  ({ integer: index + 1, string: `Esempio ${field.name}`, boolean: false })[field.family];

const int32 = (n) => Number.isInteger(n) && n >= -2147483648 && n <= 2147483647;

/**
 * The example record: the spec's `x-example-record` (a field it leaves out is left out here
 * too, as a null would be), else one made-up value per field.
 */
export function recordExample(dto, record) {
  if (record === undefined) return Object.fromEntries(dto.fields.map((f, i) => [f.property, sampleValue(f, i)]));
  return Object.fromEntries(dto.fields.filter((f) => record[f.property] !== undefined && record[f.property] !== null).map((f) => [f.property, record[f.property]]));
}

/** Problems of an `x-example-record`: names no field, or a value of another type than its field's. */
export function exampleRecordProblems(dto, record, where) {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return [`${where}: x-example-record must be a map of ${dto.record}'s properties`];
  const byProperty = new Map(dto.fields.map((f) => [f.property, f]));
  const problems = [];
  for (const [name, value] of Object.entries(record)) {
    const field = byProperty.get(name);
    if (field === undefined) problems.push(`${where}: x-example-record names "${name}", which is no property of ${dto.record} (${[...byProperty.keys()].join(', ')})`);
    else if (value !== null && !({ integer: int32, string: (v) => typeof v === 'string' && v !== '', boolean: (v) => typeof v === 'boolean' })[field.family](value)) {
      problems.push(`${where}: x-example-record.${name} must be a ${field.family === 'string' ? 'non-empty string' : field.family}${field.family === 'integer' ? ' (int32)' : ''}`);
    }
  }
  return problems;
}

/** The words of a string with where each begins and ends: a prefix, a suffix and an inner part of it. */
function wordsOf(text) {
  const words = [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({ word: m[0], start: m.index, end: m.index + m[0].length }));
  return words.length > 0 ? words : [{ word: text, start: 0, end: text.length }];
}

const likeLiteral = (text) => text.replace(/[\\%_]/g, '\\$&');

/** The example of one filter, matching `value` (its field's value in the example record); undefined when none fits. */
function filterExample(kind, family, value) {
  if (family === 'integer') {
    const examples = { eq: value, gte: value, gt: value - 1, lt: value + 1, lte: value, neq: value + 1, between: [value, value + 2], in: [value, value + 1, value + 2] };
    const example = examples[kind];
    return [example].flat().every(int32) ? example : undefined;
  }
  if (family === 'boolean') return kind === 'eq' ? value : undefined;
  const words = wordsOf(value);
  const prefix = value.slice(0, words[0].end);
  const inner = (words.length > 1 ? words.slice(1) : words).reduce((a, b) => (b.word.length > a.word.length ? b : a)).word;
  return {
    eq: value,
    startsWith: prefix,
    endsWith: value.slice(words[words.length - 1].start),
    contains: inner,
    like: `%${likeLiteral(inner)}%`,
    // A prefix sorts before the whole string in any collation.
    between: [prefix, value],
    in: [value],
  }[kind];
}

/**
 * An example for every property of the query's request (a filter whose field the record
 * leaves out gets none): each filter matches the example record, and the paging and shaping
 * properties ask for its first page, ordered and with its total.
 */
export function propertyExamples(dto, record) {
  const values = recordExample(dto, record);
  const fields = new Map(dto.fields.map((f) => [f.name, f]));
  const examples = {};
  for (const filter of dto.filters) {
    const field = fields.get(filter.field);
    if (values[field.property] === undefined) continue;
    const example = filterExample(filter.operator, field.family, values[field.property]);
    if (example !== undefined) examples[filter.property] = example;
  }
  const [key, second = key] = dto.fields;
  const shown = [...new Set([key.name, second.name])];
  return { ...examples, skip: 0, take: 10, after: '', orderBy: second.name, orderByDesc: key.name, include: 'Total', fields: shown.join(','), meta: { source: 'web' } };
}

/** The request schema with each property's example (propertyExamples) where it has one. */
export function withPropertyExamples(schema, examples) {
  const properties = Object.fromEntries(Object.entries(schema.properties).map(([name, property]) =>
    [name, examples[name] === undefined ? property : { ...property, example: examples[name] }]));
  return { ...schema, properties };
}

/**
 * A request like the seed's sample: an `In` list on the key and a `Like` on a string field,
 * both matching the example record.
 */
export function requestExample(dto, record) {
  const example = {};
  const key = dto.fields[0];
  const examples = propertyExamples(dto, record);
  if (dto.filters.some((f) => f.property === `${key.property}In`)) example[`${key.property}In`] = [1, 2, 3];
  const like = dto.filters.find((f) => f.operator === 'like');
  if (like) example[like.property] = record === undefined ? '%esempio%' : examples[like.property] ?? '%';
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

export function responseExample(dto, record) {
  return { offset: 0, total: 1, results: [recordExample(dto, record)] };
}

/** design.md §2: header of PascalCase names, CRLF line ends; a field the record leaves out is an empty cell. */
export function csvExample(dto, record) {
  const values = recordExample(dto, record);
  const header = dto.fields.map((f) => f.name).join(',');
  const row = dto.fields.map((f) => csvCell(values[f.property])).join(',');
  return `${header}\r\n${row}\r\n`;
}

/** One cell as design.md §2 writes it: RFC 4180 quoting, a formula's first character defused. */
export function csvCell(value) {
  if (value === undefined || value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
