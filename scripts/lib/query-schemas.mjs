// JSON schemas of one query DTO (design.md §7): the record, the request
// with one property per filter plus the paging/shaping ones, and the response envelope.
// Everything here is derived from the catalog, so a new field or operator needs no edit.

const INT32 = { minimum: -2147483648, maximum: 2147483647 };

/** The schema of one value of a family; int32 bounds make out-of-range input a 400, not an overflow. */
export function valueSchema(family, catalog) {
  const schema = { ...catalog.families[family] };
  if (schema.type === 'integer' && schema.format === 'int32') Object.assign(schema, INT32);
  return schema;
}

/** A string's length limit, worded as the field error says it (design.md §3). */
const lengthMessage = (name) => ({ maxLength: `'${name}' must be at most {maxLength} characters` });

/** One value of the filter `name`: a string value carries the message of its length limit. */
function filterValue(name, family, catalog) {
  const value = valueSchema(family, catalog);
  return typeof value.maxLength === 'number' ? { ...value, 'x-error-messages': lengthMessage(name) } : value;
}

/** The schema of a filter property: one value, exactly two (`pair`) or a bounded list. */
export function filterSchema(filter, dto, catalog) {
  const op = catalog.operators.find((o) => o.kind === filter.operator);
  const field = dto.fields.find((f) => f.name === filter.field);
  const value = filterValue(filter.name, field.family, catalog);
  const text = `\`${field.name}\` ${op.text}.`;
  if (op.arity === 'one') return { ...value, description: text };
  if (op.arity === 'pair') {
    const exactly = `'${filter.name}' takes exactly {maxItems} values, got {count}`;
    return { type: 'array', description: text, items: value, minItems: 2, maxItems: 2, 'x-error-messages': { minItems: exactly, maxItems: exactly } };
  }
  const inMax = catalog.limits.inMaxItems;
  return { type: 'array', description: `${text} At most ${inMax} values.`, items: value, maxItems: inMax, 'x-error-messages': { maxItems: `'${filter.name}' takes at most {maxItems} values, got {count}` } };
}

const text = (name, description) => ({ type: 'string', maxLength: 1000, description, 'x-error-messages': lengthMessage(name) });

/** design.md §7: paging and shaping properties shared by every query DTO. */
export function shapingSchemas(dto, catalog) {
  const count = (name, maximum, description) => ({ type: 'integer', format: 'int32', minimum: 0, maximum, description, 'x-error-messages': { minimum: `'${name}' must be {minimum} or more` } });
  return {
    skip: count('Skip', INT32.maximum, 'Rows to skip; default 0. For deep pages prefer `after`, whose cost does not grow with the depth.'),
    take: count('Take', catalog.paging.takeMaximum, 'Rows to return; default 100, values above MAX_TAKE (default 1000) are clamped; 0 returns no rows.'),
    after: { type: 'string', maxLength: 4096, description: 'Cursor: the `next` of the previous answer, which names the page after it under the same filters and order (an empty value is the first page). Opaque; valid on every node and after a restart; not with `skip` > 0. A cursor of another query, altered, or signed by another server is a 400 naming `After`.', 'x-error-messages': lengthMessage('After') },
    orderBy: text('OrderBy', `Comma list of fields to sort by, a \`-\` prefix sorts descending; names are case-insensitive. \`${dto.primaryKey}\` always closes the order, in the direction of its last term, so paging is stable.`),
    orderByDesc: text('OrderByDesc', 'Comma list of fields to sort descending (a `-` prefix makes one ascending); applied after `orderBy`.'),
    include: text('Include', 'Comma list: `Total` (adds `total`), `EstimatedTotal` (adds `estimatedTotal` and `estimatedTotalKind`, cheap on any filter) and aggregates over the filtered rows, such as `COUNT(*)`, `COUNT(DISTINCT Field)`, `MIN`, `MAX`, `FIRST`, `LAST`, `SUM`, `AVG`, each with an optional alias (`MAX(OrdineVista) MaxOrdine`); results go into `meta`. At most 20 items.'),
    fields: text('Fields', 'Comma list of the fields the results hold, case-insensitive; default all.'),
    meta: {
      type: 'object',
      description: 'Accepted and ignored. At most 20 entries, values at most 1024 characters.',
      maxProperties: 20,
      additionalProperties: { type: 'string', maxLength: 1024, 'x-error-messages': { maxLength: "'Meta' values must be at most {maxLength} characters", type: "'Meta' must be an object of strings" } },
      'x-error-messages': { maxProperties: "'Meta' must have at most {maxProperties} entries" },
    },
  };
}

/** The request DTO `<Operation>`: every filter, then the shaping properties. */
export function requestSchema(dto, catalog) {
  const properties = Object.fromEntries(dto.filters.map((f) => [f.property, filterSchema(f, dto, catalog)]));
  return {
    type: 'object',
    description: `Filters of \`${dto.record}\` (combined with AND) and paging. Names are case-insensitive; null counts as absent.`,
    additionalProperties: false,
    'x-case-insensitive-properties': true,
    properties: { ...properties, ...shapingSchemas(dto, catalog) },
  };
}

/** The record: nothing is required, since `fields` may drop any property and nulls are omitted. */
export function recordSchema(dto, catalog) {
  const properties = Object.fromEntries(
    dto.fields.map((f) => {
      // The family's maxLength limits filter input; a record's string is as long as its column.
      const { maxLength, ...family } = catalog.families[f.family];
      const value = f.family === 'string' ? { ...family, maxLength: f.length } : family.type === 'integer' ? { ...family, ...INT32 } : family;
      return [f.property, f.nullable ? { ...value, description: 'Omitted when null.' } : value];
    }),
  );
  return { type: 'object', description: `A \`${dto.table}\` row; properties not selected by \`fields\` are omitted.`, properties };
}

/** design.md §7: the response envelope. */
export function responseSchema(dto) {
  return {
    type: 'object',
    required: ['offset', 'results'],
    properties: {
      offset: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32.maximum, description: 'The effective `skip`.' },
      total: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32.maximum, description: 'Rows matching the filters, ignoring paging; only when `include` asks for `Total`.' },
      estimatedTotal: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32.maximum, description: 'Rows matching the filters, ignoring paging, as `estimatedTotalKind` says; only when `include` asks for `EstimatedTotal`.' },
      estimatedTotalKind: {
        type: 'string',
        enum: ['exact', 'estimate', 'atLeast'],
        description: '`exact`: the count (the filter matches at most ESTIMATE_EXACT_UP_TO rows, default 10000); `estimate`: an estimate above that, the engine\'s own or, where no index serves the filter, one from a random sample of the table\'s rows; `atLeast`: a lower bound, where neither gives a figure.',
      },
      // MAX_TAKE is at most 100,000 (src/config.ts); 1000 by default.
      results: { type: 'array', items: { $ref: `#/components/schemas/${dto.record}` }, maxItems: 100_000, description: 'At most `take` rows, and at most MAX_TAKE (1000 by default, 100,000 at most).' },
      // The sort values of one row, base64url, and a 22-character tag (design.md §7).
      next: { type: 'string', maxLength: 4096, description: 'Cursor of the next page, for `after`; omitted on the last page. Opaque.' },
      // Inline rather than a $ref to StringMap: OpenAPI 3.0 ignores siblings of $ref. At most
      // 20 aggregates; each value a number or a field's value, whose columns hold at most 255.
      meta: { type: 'object', description: 'Results of `include` aggregates; omitted when empty.', maxProperties: 20, additionalProperties: { type: 'string', maxLength: 255 } },
      responseStatus: { $ref: '#/components/schemas/ResponseStatus' },
    },
  };
}

const arrayForms =
  'Three forms: comma-separated (`a=1,2`), repeated keys (`a=1&a=2`), or a JSON array (`a=["x,y","z"]`, for items holding commas).';

/**
 * Every request property as a query parameter. Names match case-insensitively; in a POST
 * the query string fills only properties the body left out.
 */
export function queryParameters(dto, catalog) {
  return parametersOf(requestSchema(dto, catalog), dto.operation);
}

/**
 * Every property of the request schema `components.schemas.<schemaName>` as a query
 * parameter (queryParameters), its schema a reference to the property's: each bound (and
 * example) is written once, which keeps the consumers' document within its bound (design.md
 * §2). `holder` names the schema whose property a parameter refers to, when another schema
 * holds the same property (an export's filters are its query's).
 */
export function parametersOf(request, schemaName, holder = () => schemaName) {
  return Object.entries(request.properties).map(([name, { description, ...schema }]) => {
    const param = { name, in: 'query', description, schema: { $ref: `#/components/schemas/${holder(name)}/properties/${name}` } };
    if (schema.type === 'array') Object.assign(param, { description: `${description} ${arrayForms}`, style: 'form', explode: false });
    // deepObject (`meta[key]=value`) is what generated clients send for an object; the
    // server also reads the JSON object text that ServiceStack clients send (design.md §1).
    if (schema.type === 'object') return { ...param, description: `${description} In a query string: \`meta[key]=value\` pairs or JSON object text.`, style: 'deepObject', explode: true };
    return param;
  });
}
