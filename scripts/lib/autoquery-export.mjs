// Fills in the path items marked `x-autoquery-export: <Operation>` of spec/openapi.yaml: the
// export of a query DTO (design.md §7, Exports). Its request `<Operation>Export` holds the
// query's properties but `skip`, `take` and `include` (an export answers every row, and has
// no room for counts), as path-level query parameters and a JSON and form body for POST;
// its 200 answers JSON Lines or CSV. The hand-written part keeps summary, access and
// extensions, as for the queries (autoquery.mjs).
import { bodyOf, exampleRecordOf, queryErrorResponses } from './autoquery.mjs';
import { csvCell, exportRequestExample, propertyExamples, recordExample, withPropertyExamples } from './query-examples.mjs';
import { parametersOf, requestSchema } from './query-schemas.mjs';
import { SpecError } from './spec-error.mjs';

const methods = ['get', 'put', 'post', 'delete', 'patch'];
const bodyMethods = new Set(['post', 'put', 'patch']);
const notExported = new Set(['skip', 'take', 'include']);
/** The properties of an export's request that differ from its query's. */
const exportOwn = new Set(['after']);

/** The request DTO `<Operation>Export`. */
export function exportRequestSchema(dto, catalog) {
  const request = requestSchema(dto, catalog);
  const properties = Object.fromEntries(Object.entries(request.properties).filter(([name]) => !notExported.has(name)));
  properties.after = {
    ...properties.after,
    description:
      "Where the export begins: after the row of a cursor (a query's `next`, or the `after` of an export's last line), or after the row whose sort values this JSON array holds (the order's fields in order, `Id` last, as the records hold them), which resumes an export cut short from the last row received. Values of another length or type are a 400 naming `After`.",
  };
  return { ...request, description: `Filters of \`${dto.record}\` (combined with AND), order and fields of an export: the query's, without paging. Names are case-insensitive; null counts as absent.`, properties };
}

/** The last line of a JSON Lines export. */
export const exportEndSchema = {
  type: 'object',
  required: ['complete', 'rows'],
  description: 'The last line of a JSON Lines export: `complete` true when every row was sent; false, with `responseStatus` and `after`, when the export failed after it began.',
  properties: {
    complete: { type: 'boolean' },
    rows: { type: 'integer', format: 'int32', minimum: 0, maximum: 2147483647, description: 'Rows sent (ids are int32, so no table holds more).' },
    after: { type: 'string', maxLength: 4096, description: 'The cursor of the last row sent: `after` resumes from it.' },
    responseStatus: { $ref: '#/components/schemas/ResponseStatus' },
  },
};

function responses(dto, readsBody, example) {
  const record = recordExample(dto, example);
  const ok = {
    description: `Every matching \`${dto.record}\` record, streamed (chunked).`,
    headers: {
      'Content-Disposition': {
        description: `CSV only: \`attachment; filename="${dto.operation}.csv"\`.`,
        schema: { type: 'string', maxLength: 128, pattern: '^attachment; filename="[A-Za-z]+\\.csv"$' },
      },
    },
    content: {
      'application/x-ndjson': {
        schema: { type: 'string', description: `JSON Lines: one \`${dto.record}\` record per line (as the query's \`results\` hold it), then one \`ExportEnd\` line.` },
        'x-item-schema': { oneOf: [{ $ref: `#/components/schemas/${dto.record}` }, { $ref: '#/components/schemas/ExportEnd' }] },
        example: `${JSON.stringify(record)}\n${JSON.stringify({ complete: true, rows: 1 })}\n`,
      },
      'text/csv': {
        schema: { type: 'string', description: "The query's CSV of every row: header row of the selected fields (PascalCase), then one row per record; RFC 4180, CRLF." },
        example: `${dto.fields.map((f) => f.name).join(',')}\r\n${dto.fields.map((f) => csvCell(record[f.property])).join(',')}\r\n`,
      },
    },
  };
  const errors = Object.entries(queryErrorResponses)
    .filter(([status]) => readsBody || (status !== '413' && status !== '415'))
    .map(([status, name]) => [status, { $ref: `#/components/responses/${name}` }]);
  return { 200: ok, ...Object.fromEntries(errors) };
}

function fillPathItem(path, item, dto, catalog, problems, record) {
  if (item.parameters) problems.push(`spec/openapi.yaml: ${path}: parameters of an x-autoquery-export path are generated; remove them`);
  // A parameter the export shares with its query refers to the query's property, examples and all.
  const own = `${dto.operation}Export`;
  const filled = { ...item, parameters: parametersOf(exportRequestSchema(dto, catalog), own, (name) => (exportOwn.has(name) ? own : dto.operation)) };
  for (const method of methods.filter((m) => item[m])) {
    const op = item[method];
    if (op['x-export'] !== true) problems.push(`spec/openapi.yaml: ${method.toUpperCase()} ${path}: an export operation must say x-export: true`);
    for (const key of ['parameters', 'requestBody', 'responses']) {
      if (op[key]) problems.push(`spec/openapi.yaml: ${method.toUpperCase()} ${path}: \`${key}\` is generated for x-autoquery-export; remove it`);
    }
    const body = bodyOf(`${dto.operation}Export`, exportRequestExample(dto));
    filled[method] = { ...op, ...(bodyMethods.has(method) ? { requestBody: body } : {}), responses: responses(dto, bodyMethods.has(method), record) };
  }
  return filled;
}

/** Returns a copy of the document with every x-autoquery-export path filled; throws SpecError. */
export function fillAutoQueryExport(document, catalog) {
  const problems = [];
  const byOperation = new Map(catalog.queryDtos.map((d) => [d.operation, d]));
  const paths = {};
  const schemas = { ...(document.components?.schemas ?? {}) };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const name = item['x-autoquery-export'];
    const dto = name === undefined ? undefined : byOperation.get(name);
    if (name !== undefined && dto === undefined) problems.push(`spec/openapi.yaml: ${path}: x-autoquery-export names unknown DTO "${name}"`);
    if (dto === undefined) {
      paths[path] = item;
      continue;
    }
    // The query's example record (its path item's x-example-record, checked by autoquery.mjs).
    const record = exampleRecordOf(document, dto);
    paths[path] = fillPathItem(path, item, dto, catalog, problems, record);
    const examples = Object.fromEntries(Object.entries(propertyExamples(dto, record)).filter(([name]) => exportOwn.has(name)));
    for (const [schemaName, schema] of [[`${dto.operation}Export`, withPropertyExamples(exportRequestSchema(dto, catalog), examples)], ['ExportEnd', exportEndSchema]]) {
      if (document.components?.schemas?.[schemaName]) problems.push(`spec/openapi.yaml: components.schemas.${schemaName} is generated; remove it`);
      schemas[schemaName] = schema;
    }
  }
  if (problems.length > 0) throw new SpecError(problems);
  return { ...document, paths, components: { ...(document.components ?? {}), schemas } };
}
