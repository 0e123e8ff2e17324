// Portman checks a 200 as one JSON document; a JSON Lines answer (an export's default,
// `application/x-ndjson`) is many. For each operation answering JSON Lines this adds a test
// of its own instead of Portman's JSON body and schema tests: every line parses and matches
// the item schema the contract declares (`x-item-schema`, closed like the rest, see
// strict-document.mjs), and the last line says the export is complete with the count of
// the lines before it.
import { dereference } from './strict-document.mjs';

const verbs = ['get', 'put', 'post', 'delete', 'patch'];
export const jsonLines = 'application/x-ndjson';

/** `{ id, method, path, itemSchema }` of every operation whose 200 answers JSON Lines first. */
export function jsonLinesOperations(document) {
  const found = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of verbs.filter((m) => item[m])) {
      const content = item[method].responses?.['200']?.content ?? {};
      if (Object.keys(content)[0] !== jsonLines) continue;
      const itemSchema = content[jsonLines]['x-item-schema'];
      if (!itemSchema) throw new Error(`${method.toUpperCase()} ${path}: a JSON Lines 200 must declare x-item-schema`);
      found.push({ id: item[method].operationId, method, path, itemSchema: dereference(itemSchema, document) });
    }
  }
  return found;
}

/** The Postman test script checking a JSON Lines answer line by line (ajv 6, postman-sandbox's). */
export function jsonLinesScript(op) {
  const name = `[${op.method.toUpperCase()}]::${op.path} - every JSON Lines line matches x-item-schema, the last one ends the export`;
  return [
    `pm.test(${JSON.stringify(name)}, function () {`,
    "  const Ajv = require('ajv');",
    "  const ajv = new Ajv({ allErrors: true, unknownFormats: 'ignore', nullable: true });",
    `  const validate = ajv.compile(${JSON.stringify(op.itemSchema)});`,
    "  const lines = pm.response.text().split('\\n');",
    "  pm.expect(lines.pop(), 'the body ends with a line feed').to.equal('');",
    '  lines.forEach(function (line, i) {',
    '    const value = JSON.parse(line);',
    "    pm.expect(validate(value), 'line ' + (i + 1) + ': ' + ajv.errorsText(validate.errors)).to.equal(true);",
    '  });',
    "  pm.expect(JSON.parse(lines[lines.length - 1]), 'the last line').to.deep.equal({ complete: true, rows: lines.length - 1 });",
    '});',
  ];
}

/** The Portman config with JSON Lines operations checked by jsonLinesScript instead of Portman's JSON tests. */
export function withJsonLinesTests(config, operations) {
  const ids = operations.map((op) => op.id);
  const contractTests = (config.tests?.contractTests ?? []).map((test) => {
    const copy = { ...test };
    for (const kind of ['jsonBody', 'schemaValidation']) {
      if (copy[kind]) copy[kind] = { ...copy[kind], excludeForOperations: [...(copy[kind].excludeForOperations ?? []), ...ids] };
    }
    return copy;
  });
  const extendTests = [...(config.tests?.extendTests ?? []), ...operations.map((op) => ({ openApiOperationId: op.id, tests: jsonLinesScript(op), append: true }))];
  return { ...config, tests: { ...config.tests, contractTests, extendTests } };
}
