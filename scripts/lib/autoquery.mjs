// Fills in the path items marked `x-autoquery: <Operation>` of spec/openapi.yaml: path-level
// query parameters (shared by GET and POST), a JSON and form body for POST, the responses,
// and the record/request/response schemas. The hand-written part keeps summary, access
// and extensions; the generator owns everything derived from the tables. The examples come
// from the path item's `x-example-record`, a record of the demo data (query-examples.mjs).
import { csvExample, exampleRecordProblems, propertyExamples, requestExample, responseExample, withPropertyExamples } from './query-examples.mjs';
import { queryParameters, recordSchema, requestSchema, responseSchema } from './query-schemas.mjs';
import { SpecError } from './spec-error.mjs';

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const bodyMethods = new Set(['post', 'put', 'patch']);
/** design.md §3: the failures a query operation can answer. */
export const queryErrorResponses = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  406: 'NotAcceptable',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  503: 'ServiceUnavailable',
};

/** A GET reads no body, so it cannot answer 413 or 415. */
function responses(dto, readsBody, record) {
  const ok = {
    description: `A page of \`${dto.record}\` records.`,
    headers: {
      Link: {
        description: 'GET only, when a further page exists: `<URL>; rel="next"` (RFC 8288), the same request with `after` set to `next` (and no `skip`). CSV answers, whose body has no room for `next`, carry it too.',
        // A request's target fits in Node's 16 KiB of headers; the link adds a cursor to it.
        schema: { type: 'string', maxLength: 20480 },
      },
      'Content-Disposition': {
        description: `CSV only: \`attachment; filename="${dto.operation}.csv"\`.`,
        schema: { type: 'string', maxLength: 128, pattern: '^attachment; filename="[A-Za-z]+\\.csv"$' },
      },
    },
    content: {
      'application/json': { schema: { $ref: `#/components/schemas/${dto.operation}Response` }, example: responseExample(dto, record) },
      'text/csv': {
        schema: { type: 'string', description: 'Header row of the selected fields (PascalCase), then one row per result; RFC 4180, CRLF.' },
        example: csvExample(dto, record),
      },
      'application/javascript': { schema: { $ref: '#/components/schemas/Jsonp' } },
    },
  };
  const errors = Object.entries(queryErrorResponses)
    .filter(([status]) => readsBody || (status !== '413' && status !== '415'))
    .map(([status, name]) => [status, { $ref: `#/components/responses/${name}` }]);
  return { 200: ok, ...Object.fromEntries(errors) };
}

/**
 * A form names an object's entries `meta[key]=value`, as the query string does (design.md §1);
 * OpenAPI's default for a form would be `key=value`, an unknown property.
 */
export const formEncoding = { meta: { style: 'deepObject', explode: true } };

/** A JSON and a form body, with the same example: the server reads both alike (design.md §1). */
export function bodyOf(schemaName, example) {
  const schema = { $ref: `#/components/schemas/${schemaName}` };
  return {
    required: false,
    content: {
      'application/json': { schema, example },
      'application/x-www-form-urlencoded': { schema, encoding: formEncoding, example },
    },
  };
}

function fillPathItem(path, item, dto, catalog, problems, record) {
  if (item.parameters) problems.push(`spec/openapi.yaml: ${path}: parameters of an x-autoquery path are generated; remove them`);
  const filled = { ...item, parameters: queryParameters(dto, catalog) };
  for (const method of methods.filter((m) => item[m])) {
    const op = item[method];
    for (const key of ['parameters', 'requestBody', 'responses']) {
      if (op[key]) problems.push(`spec/openapi.yaml: ${method.toUpperCase()} ${path}: \`${key}\` is generated for x-autoquery; remove it`);
    }
    filled[method] = {
      ...op,
      ...(bodyMethods.has(method) ? { requestBody: bodyOf(dto.operation, requestExample(dto, record)) } : {}),
      responses: responses(dto, bodyMethods.has(method), record),
    };
  }
  return filled;
}

/**
 * The `x-example-record` of the path item of the query `dto` (x-autoquery); undefined when it
 * has none, or a broken one (its problems pushed, when given a list).
 */
export function exampleRecordOf(document, dto, problems = []) {
  const [path, item] = Object.entries(document.paths ?? {}).find(([, i]) => i['x-autoquery'] === dto.operation) ?? [];
  const record = item?.['x-example-record'];
  if (record === undefined) return undefined;
  const found = exampleRecordProblems(dto, record, `spec/openapi.yaml: ${path}`);
  problems.push(...found);
  return found.length === 0 ? record : undefined;
}

/** The document without the path items' `x-example-record`: input of the generator alone, once the queries and exports are filled. */
export function withoutExampleRecords(document) {
  const paths = Object.fromEntries(Object.entries(document.paths ?? {}).map(([path, item]) => {
    const { 'x-example-record': _, ...rest } = item;
    return [path, rest];
  }));
  return { ...document, paths };
}

/** Returns a copy of the document with every x-autoquery path filled; throws SpecError. */
export function fillAutoQuery(document, catalog) {
  const problems = [];
  const byOperation = new Map(catalog.queryDtos.map((d) => [d.operation, d]));
  const routed = new Set();
  const paths = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const name = item['x-autoquery'];
    if (name === undefined) {
      paths[path] = item;
      continue;
    }
    const dto = byOperation.get(name);
    if (!dto) {
      problems.push(`spec/openapi.yaml: ${path}: x-autoquery names unknown DTO "${name}" (spec/query-dtos.yaml has ${[...byOperation.keys()].join(', ')})`);
      continue;
    }
    routed.add(name);
    paths[path] = fillPathItem(path, item, dto, catalog, problems, exampleRecordOf(document, dto, problems));
  }
  for (const name of byOperation.keys()) {
    if (!routed.has(name)) problems.push(`spec/query-dtos.yaml: DTO ${name} has no path with x-autoquery: ${name} in spec/openapi.yaml`);
  }
  const components = document.components ?? {};
  for (const name of Object.values(queryErrorResponses)) {
    if (!components.responses?.[name]) problems.push(`spec/openapi.yaml: components.responses.${name} is missing (query operations use it)`);
  }
  const schemas = { ...(components.schemas ?? {}) };
  for (const dto of catalog.queryDtos) {
    const record = exampleRecordOf(document, dto);
    for (const [name, schema] of [
      [dto.record, recordSchema(dto, catalog)],
      [dto.operation, withPropertyExamples(requestSchema(dto, catalog), propertyExamples(dto, record))],
      [`${dto.operation}Response`, responseSchema(dto)],
    ]) {
      if (schemas[name]) problems.push(`spec/openapi.yaml: components.schemas.${name} is generated; remove it`);
      schemas[name] = schema;
    }
  }
  if (problems.length > 0) throw new SpecError(problems);
  return { ...document, paths, components: { ...components, schemas } };
}
