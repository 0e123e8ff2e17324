// Portman sends each operation's first request body, the JSON one. Every body of the contract
// may also be a form (`application/x-www-form-urlencoded`, design.md §2), so for each
// operation that declares one this adds a Portman variation sending the form's own example,
// with the operation's overwrites, variables and contract tests. Portman's variation writes a
// form example as JSON text (getRequestBodyExample), and openapi-to-postman builds a form body
// from the schema alone, ignoring the example; so a pre-request script turns the variation's
// JSON body (the form example, overwritten) into form pairs as the contract encodes them:
// a list as repeated keys (OpenAPI's default for a form), an object under the media type's
// `encoding` deepObject as `name[key]=value`.

const verbs = ['get', 'put', 'post', 'delete', 'patch'];
export const formMedia = 'application/x-www-form-urlencoded';

/** `{ id, method, path, deepObjects }` of every operation whose body may be a form with an example. */
export function formOperations(document) {
  const resolve = (node) => (node?.$ref ? node.$ref.slice(2).split('/').reduce((at, key) => at?.[key], document) : node);
  const found = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of verbs.filter((m) => item[m]?.requestBody)) {
      const form = resolve(item[method].requestBody)?.content?.[formMedia];
      if (!form) continue;
      if (form.example === undefined) throw new Error(`${method.toUpperCase()} ${path}: the ${formMedia} body has no example`);
      const deepObjects = Object.entries(form.encoding ?? {}).filter(([, e]) => e.style === 'deepObject').map(([name]) => name);
      found.push({ id: item[method].operationId, method, path, deepObjects });
    }
  }
  return found;
}

/** The pre-request script that sends the variation's JSON body as form pairs. */
export function formScript(op) {
  return [
    '// The form example, as Portman wrote it (JSON text), sent as the contract encodes a form.',
    'const body = JSON.parse(pm.request.body.raw);',
    `const deepObjects = ${JSON.stringify(op.deepObjects)};`,
    'const pairs = [];',
    'Object.keys(body).forEach(function (name) {',
    '  const value = body[name];',
    '  if (Array.isArray(value)) value.forEach(function (v) { pairs.push({ key: name, value: String(v) }); });',
    "  else if (value !== null && typeof value === 'object') {",
    "    if (deepObjects.indexOf(name) < 0) throw new Error(name + ': an object in a form needs encoding style deepObject');",
    "    Object.keys(value).forEach(function (k) { pairs.push({ key: name + '[' + k + ']', value: String(value[k]) }); });",
    '  } else pairs.push({ key: name, value: String(value) });',
    '});',
    "pm.request.body.update({ mode: 'urlencoded', urlencoded: pairs });",
  ];
}

/**
 * The Portman config with a `form` variation of each operation of `operations`: the form
 * example, the operation's overwrites and variables, the config's contract tests; an
 * operation answering JSON Lines (`jsonLines`, json-lines-tests.mjs) gets its line-by-line
 * test instead of the JSON body and schema tests, as its JSON request does.
 */
export function withFormVariations(config, operations, jsonLines = []) {
  const forOperation = (list, id) => (list ?? []).filter((entry) => entry.openApiOperationId === id);
  const contractTests = (op) => {
    if (!jsonLines.some((j) => j.id === op.id)) return config.tests?.contractTests ?? [];
    return (config.tests?.contractTests ?? []).filter((test) => !test.jsonBody && !test.schemaValidation);
  };
  const variationTests = operations.map((op) => ({
    openApiOperationId: op.id,
    variations: [{
      name: 'form',
      openApiRequest: formMedia,
      overwrites: forOperation(config.overwrites, op.id).map(({ openApiOperationId, ...overwrite }) => overwrite),
      assignVariables: forOperation(config.assignVariables, op.id).map(({ openApiOperationId, ...assign }) => assign),
      operationPreRequestScripts: [{ scripts: formScript(op) }],
      tests: { contractTests: contractTests(op), extendTests: forOperation(config.tests?.extendTests, op.id).map(({ openApiOperationId, ...extend }) => extend) },
    }],
  }));
  return { ...config, tests: { ...config.tests, variationTests: [...(config.tests?.variationTests ?? []), ...variationTests] } };
}
