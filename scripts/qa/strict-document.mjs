// The contract as QA's run checks it: every object schema that lists its properties and says
// nothing of others gets `additionalProperties: false`, so an undeclared property in an
// answer fails the run. Portman's own `additionalProperties: false` option closes every
// `type: object`, maps (`meta`) and the free-form `{ type: object }` of /openapi.json
// included, which the contract leaves open on purpose.

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy of the document with every closed-by-intent object schema closed. */
export function strictDocument(document) {
  const close = (node) => {
    if (Array.isArray(node)) return node.map(close);
    if (!isObject(node)) return node;
    const copy = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, close(v)]));
    if (isObject(copy.properties) && !('additionalProperties' in copy) && (copy.type === 'object' || copy.type === undefined)) copy.additionalProperties = false;
    return copy;
  };
  return close(document);
}

/** The schema with every local `$ref` of the document replaced by its target (the contract has no cycle). */
export function dereference(schema, document, seen = []) {
  if (Array.isArray(schema)) return schema.map((s) => dereference(s, document, seen));
  if (!isObject(schema)) return schema;
  if (typeof schema.$ref === 'string') {
    if (seen.includes(schema.$ref)) throw new Error(`${schema.$ref} refers to itself`);
    const target = schema.$ref.replace(/^#\//, '').split('/').reduce((at, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    if (target === undefined) throw new Error(`${schema.$ref} is not in the document`);
    return dereference(target, document, [...seen, schema.$ref]);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, dereference(v, document, seen)]));
}
