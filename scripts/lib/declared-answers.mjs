// Declares the answers that come from the edge rather than from one operation, so that no
// operation can forget them (design.md §3, §4, §9):
//   - 500 on every operation, 503 on every operation a handler serves (the edge's own
//     routes touch no database);
//   - 401 and 403 must be written where an operation needs a role (checked, not added:
//     an operation's description says what each means there);
//   - `x-rate-limit: <policy>`: 429, and the RateLimit-Policy and RateLimit fields on every
//     answer of the operation (required on the 429, which always carries them, and on the
//     200 of a policy that is never off); a shared
//     answer gets one copy with the fields per policy (`components.responses.<Name><Policy>`),
//     which every route of the policy's operations cites;
//   - Access-Control-Allow-Origin on every answer, since the edge adds it to any answer to
//     an origin that CORS_ORIGINS allows.
// Runs before the route variants are added, which copy what it declared.
import { SpecError } from './spec-error.mjs';

const verbs = ['get', 'put', 'post', 'delete', 'patch'];
const corsHeader = 'Access-Control-Allow-Origin';
const rateLimitHeaders = ['RateLimit-Policy', 'RateLimit'];
/**
 * The policies that are never off, so their fields are on every 200: the exports' limit
 * (EXPORT_CONCURRENCY is at least 1, src/config.ts). `register` and `sign-in-failures`
 * turn off with a limit of 0, and then send no field (design.md §4).
 */
const alwaysCounted = new Set(['export']);
const headerRef = (name) => ({ $ref: `#/components/headers/${name}` });
const responseRef = (name) => ({ $ref: `#/components/responses/${name}` });

const withCors = (response) => ({ ...response, headers: { ...(response.headers ?? {}), [corsHeader]: headerRef(corsHeader) } });

/** A response of a rate-limited operation: the shared one copied with the limit's fields. */
function withRateLimit(response, status, policy) {
  const always = status === '429' || (status === '200' && alwaysCounted.has(policy));
  const fields = Object.fromEntries(
    rateLimitHeaders.map((name) => [name, always ? { ...headerRef(name), required: true } : headerRef(name)]),
  );
  // A $ref may not have siblings in OpenAPI 3.0, so a header marked required is inlined.
  return { ...response, headers: { ...(response.headers ?? {}), ...fields } };
}

function inlineRequired(headers, shared) {
  return Object.fromEntries(
    Object.entries(headers).map(([name, h]) => {
      if (!h.$ref || h.required !== true) return [name, h];
      return [name, { ...shared[h.$ref.split('/').pop()], required: true }];
    }),
  );
}

/** Returns a copy of the document with the declared answers added; throws SpecError. */
export function declareAnswers(document) {
  const problems = [];
  const components = document.components ?? {};
  const shared = components.responses ?? {};
  const sharedHeaders = components.headers ?? {};
  for (const name of ['InternalServerError', 'ServiceUnavailable', 'TooManyRequests']) {
    if (!shared[name]) problems.push(`spec/openapi.yaml: components.responses.${name} is missing (every operation may answer it)`);
  }
  for (const name of [corsHeader, ...rateLimitHeaders]) {
    if (!sharedHeaders[name]) problems.push(`spec/openapi.yaml: components.headers.${name} is missing`);
  }
  const limitedCopies = {};
  /** The answer of a limited operation: its own with the fields, a shared one as that policy's copy. */
  const limited = (r, status, policy) => {
    const own = (response) => {
      const copy = withRateLimit(withCors(response), status, policy);
      return { ...copy, headers: inlineRequired(copy.headers, sharedHeaders) };
    };
    if (!r.$ref) return own(r);
    const name = r.$ref.split('/').pop();
    const copyName = `${name}${policy.split('-').map((w) => w[0].toUpperCase() + w.slice(1)).join('')}`;
    if (shared[copyName]) problems.push(`spec/openapi.yaml: components.responses.${copyName} is generated; remove it`);
    limitedCopies[copyName] ??= own(shared[name] ?? {});
    return responseRef(copyName);
  };

  const paths = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    paths[path] = { ...item };
    for (const method of verbs.filter((m) => item[m])) {
      const op = item[method];
      const where = `spec/openapi.yaml: ${method.toUpperCase()} ${path}`;
      const roles = op['x-roles'];
      const responses = { ...op.responses };
      if (Array.isArray(roles)) {
        if (!responses['401']) problems.push(`${where}: needs a bearer token (x-roles), so it must declare 401`);
        if (roles.length > 0 && !responses['403']) problems.push(`${where}: needs a role, so it must declare 403`);
      }
      responses['500'] ??= responseRef('InternalServerError');
      if (op['x-edge'] !== true) responses['503'] ??= responseRef('ServiceUnavailable');
      const policy = op['x-rate-limit'];
      if (policy !== undefined && !/^[a-z-]+$/.test(String(policy))) problems.push(`${where}: x-rate-limit must be a lower-case name, got ${JSON.stringify(policy)}`);
      if (policy !== undefined) responses['429'] ??= responseRef('TooManyRequests');
      const declared = Object.entries(responses)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([status, r]) => {
          // Shared responses get the CORS header where they are defined (below).
          if (policy === undefined) return [status, r.$ref ? r : withCors(r)];
          return [status, limited(r, status, policy)];
        });
      paths[path][method] = { ...op, responses: Object.fromEntries(declared) };
    }
  }
  if (problems.length > 0) throw new SpecError(problems);
  const responses = { ...Object.fromEntries(Object.entries(shared).map(([name, r]) => [name, withCors(r)])), ...limitedCopies };
  return { ...document, paths, components: { ...components, responses } };
}
