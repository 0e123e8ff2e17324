// Declares the conditional GET of the operations marked `x-etag: true` (design.md §7,
// "Entity tags"), so spec-driven proxies and clients see it:
//   - ETag and Cache-Control on the 200 of every such operation (a POST's too);
//   - on its GET, the If-None-Match request header and the 304 (`components.responses.NotModified`).
// Optional on the 200: a JSONP error answer is a 200 too and carries no tag. Runs after the
// query operations are filled in and before the route variants, which copy what it declared
// (HEAD keeps the 304 and the headers).
import { SpecError } from './spec-error.mjs';

const verbs = ['get', 'put', 'post', 'delete', 'patch'];
const headerRef = (name) => ({ $ref: `#/components/headers/${name}` });

/** The bound the server enforces (src/http/entity-tag.ts, ifNoneMatchMaxLength): past it, 400. */
const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  description:
    'Entity tags of answers the client holds (RFC 9110 §13.1.2): a comma list of tags as `ETag` gave them, `W/` tags compared weakly, or `*`. When one is current the answer is 304 with no body, and no row is read. At most 4096 characters (else 400, field `If-None-Match`).',
  schema: { type: 'string', maxLength: 4096 },
  example: '"q1F0kHc2Yk7d1vX9m3Jt8sWbA4nE6rLz"',
  'x-edge-parameter': true,
};

/** Returns a copy of the document with the conditional GET declared; throws SpecError. */
export function declareEntityTags(document) {
  const problems = [];
  const components = document.components ?? {};
  for (const name of ['ETag', 'Cache-Control']) {
    if (!components.headers?.[name]) problems.push(`spec/openapi.yaml: components.headers.${name} is missing (x-etag operations use it)`);
  }
  if (!components.responses?.NotModified) problems.push('spec/openapi.yaml: components.responses.NotModified is missing (x-etag operations use it)');
  if (components.parameters?.IfNoneMatch) problems.push('spec/openapi.yaml: components.parameters.IfNoneMatch is generated; remove it');
  const paths = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    paths[path] = { ...item };
    for (const method of verbs.filter((m) => item[m]?.['x-etag'] === true)) {
      const op = item[method];
      const where = `spec/openapi.yaml: ${method.toUpperCase()} ${path}`;
      const ok = op.responses?.['200'];
      if (!ok || ok.$ref) {
        problems.push(`${where}: x-etag needs a 200 of its own to carry ETag`);
        continue;
      }
      if (op.responses['304']) problems.push(`${where}: 304 is generated for x-etag; remove it`);
      const tagged = { ...ok, headers: { ...(ok.headers ?? {}), ETag: headerRef('ETag'), 'Cache-Control': headerRef('Cache-Control') } };
      const responses = { ...op.responses, 200: tagged };
      if (method !== 'get') {
        paths[path][method] = { ...op, responses };
        continue;
      }
      const parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/IfNoneMatch' }];
      paths[path][method] = { ...op, parameters, responses: { ...responses, 304: { $ref: '#/components/responses/NotModified' } } };
    }
  }
  if (problems.length > 0) throw new SpecError(problems);
  return { ...document, paths, components: { ...components, parameters: { ...(components.parameters ?? {}), IfNoneMatch: ifNoneMatch } } };
}
