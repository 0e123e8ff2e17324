// The routes of the two served documents (design.md §2, §11), derived from the canonical
// operations so that no route is copied by hand:
//   - declareNegotiation: the `format`, `callback` and `_` query parameters every operation
//     reads, on the operation at its own route;
//   - describeRoutes: the consumers' document (/openapi.json), each operation once, its
//     description naming the routes besides its own;
//   - addRouteVariants: the routes document (/openapi-routes.json), with every route the
//     server answers besides the canonical ones: the `.json` suffix on every operation route
//     and `.csv` where the operation serves CSV (`.jsonl` and `.csv` for an export), each
//     answering one media type; HEAD wherever GET is answered; ServiceStack's predefined
//     routes `/json/reply/{Name}` and `/api/{Name}` for every operation that names its
//     request DTO (`x-servicestack-name`), path parameters moving to the query string as
//     ServiceStack clients send them.
// Each variant keeps its canonical operation's parameters, body, access and errors, carries
// `x-variant-of: <canonical operationId>`, and is served by the canonical handler; a suffix
// route and HEAD never stream, so they drop a live answer's declarations (live-answers.mjs).
import { withoutLive } from './live-answers.mjs';
import { SpecError } from './spec-error.mjs';

const verbs = ['get', 'put', 'post', 'delete', 'patch'];
export const predefinedPrefixes = [
  { prefix: '/json/reply/', tag: 'Reply' },
  { prefix: '/api/', tag: 'Api' },
];
export const suffixFormats = [
  { suffix: '.json', format: 'json', tag: 'Json', media: ['application/json', 'application/javascript'] },
  { suffix: '.csv', format: 'csv', tag: 'Csv', media: ['text/csv'] },
  { suffix: '.jsonl', format: 'jsonl', tag: 'Jsonl', media: ['application/x-ndjson'] },
];

/** The suffixes an operation answers: `.json` (and `.csv` with x-csv); an export (x-export) `.jsonl` and `.csv`. */
function suffixesOf(op) {
  if (op['x-export'] === true) return suffixFormats.filter((s) => s.format === 'jsonl' || s.format === 'csv');
  return suffixFormats.filter((s) => s.format === 'json' || (s.format === 'csv' && op['x-csv'] === true));
}

const edgeParameters = {
  FormatJson: formatParameter(['json']),
  FormatJsonCsv: formatParameter(['json', 'csv']),
  FormatJsonlCsv: formatParameter(['jsonl', 'csv']),
  Callback: {
    name: 'callback',
    in: 'query',
    description: 'JSONP: wraps the JSON answer as `/**/name(<json>);` (`application/javascript`); every answer is then 200, errors in the body.',
    schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)*$' },
    'x-edge-parameter': true,
  },
  CacheBuster: {
    name: '_',
    in: 'query',
    description: "Ignored: jQuery's JSONP cache-buster; at most 64 characters (else 400, field `_`).",
    schema: { type: 'string', maxLength: 64 },
    'x-edge-parameter': true,
  },
};

function formatParameter(formats) {
  return {
    name: 'format',
    in: 'query',
    description: `The answer's format: ${formats.map((f) => `\`${f}\``).join(' or ')} (a path suffix wins over it; it wins over \`Accept\`). Any other value is 406.`,
    schema: { type: 'string', enum: formats },
    'x-edge-parameter': true,
  };
}

const ref = (name) => ({ $ref: `#/components/parameters/${name}` });

/** The operation with the edge's query parameters added; an export is never JSONP. */
function withEdgeParameters(op) {
  if (op['x-export'] === true) return { ...op, parameters: [...(op.parameters ?? []), ref('FormatJsonlCsv')] };
  const format = op['x-csv'] === true ? 'FormatJsonCsv' : 'FormatJson';
  return { ...op, parameters: [...(op.parameters ?? []), ref(format), ref('Callback'), ref('CacheBuster')] };
}

/**
 * A 200 answering one suffix's media types; the error responses stay as they are. A suffix
 * without JSONP (`.csv`, `.jsonl`) never answers an error as a 200, so a tagged 200 there
 * always carries its tag (design.md §7).
 */
function forSuffix(responses, suffix, sharedHeaders) {
  const ok = responses['200'];
  if (!ok?.content) return responses;
  const content = Object.fromEntries(Object.entries(ok.content).filter(([media]) => suffix.media.includes(media)));
  const headers = ok.headers && suffix.format !== 'json' ? requiredWhereSent(ok.headers, entityTagHeaders, sharedHeaders) : ok.headers;
  return { ...responses, 200: { ...ok, content, ...(headers ? { headers } : {}) } };
}

const entityTagHeaders = ['ETag', 'Cache-Control'];
const rateLimitHeaders = ['RateLimit-Policy', 'RateLimit'];

/** `headers` with those of `names` it declares marked required (inlined: a $ref may not have siblings in OpenAPI 3.0). */
function requiredWhereSent(headers, names, sharedHeaders) {
  return Object.fromEntries(Object.entries(headers).map(([name, h]) => {
    if (!names.includes(name)) return [name, h];
    return [name, { ...(h.$ref ? sharedHeaders[h.$ref.split('/').pop()] : h), required: true }];
  }));
}

/** HEAD answers the GET's statuses and headers, never a body (shared responses resolved); it takes no export slot, so no RateLimit field is sure. */
function forHead(responses, shared) {
  const optional = (headers) => Object.fromEntries(Object.entries(headers).map(([name, h]) => {
    if (!rateLimitHeaders.includes(name) || h.required !== true) return [name, h];
    const { required, ...rest } = h;
    return [name, rest];
  }));
  return Object.fromEntries(
    Object.entries(responses).map(([status, r]) => {
      const resolved = r.$ref ? shared[r.$ref.split('/').pop()] ?? {} : r;
      // A 429 answers HEAD too, with its fields: the limit was reached.
      const headers = resolved.headers && status !== '429' ? optional(resolved.headers) : resolved.headers;
      return [status, { description: resolved.description ?? status, ...(headers ? { headers } : {}) }];
    }),
  );
}

/** ServiceStack clients put every property of a GET in the query string, path ones too. */
function pathParametersToQuery(parameters) {
  return (parameters ?? []).map((p) => (p.in === 'path' ? { ...p, name: p.name[0].toLowerCase() + p.name.slice(1), in: 'query' } : p));
}

/** The routes besides its own that answer an operation: its suffix routes, and ServiceStack's predefined ones with theirs. */
function otherRoutesOf(path, op) {
  const bases = [{ path, tag: '' }];
  const name = op['x-servicestack-name'];
  for (const { prefix, tag } of name ? predefinedPrefixes : []) {
    if (`${prefix}${name}` !== path) bases.push({ path: `${prefix}${name}`, tag });
  }
  return bases.map((base) => ({ ...base, suffixes: suffixesOf(op) }));
}

const code = (text) => `\`${text}\``;

/**
 * The paragraph appended to an operation's description in the consumers' document: how its
 * format is chosen, and which other routes answer it (declared in the routes document).
 */
function routesNote(path, method, op, hasPathParameters) {
  const lines = [];
  const get = method === 'get' ? ' HEAD answers as GET does, without a body.' : '';
  if (op['x-edge'] === true) return get === '' ? undefined : `**Routes.**${get}`;
  const routes = otherRoutesOf(path, op);
  const own = routes[0];
  const formats = own.suffixes.map((s) => `${code(path + s.suffix)} (${s.media.map(code).join(', ')})`);
  lines.push(`**Format.** A path suffix, then \`format\`, then \`Accept\` choose the answer's media type among the 200's${op['x-export'] === true ? '' : '; `callback` makes it JSONP'}.`);
  lines.push(`**Routes.** Besides this one: ${formats.join(', ')}.`);
  const predefined = routes.slice(1);
  if (predefined.length > 0) {
    const moved = hasPathParameters ? ', path parameters in the query string' : '';
    const suffixes = own.suffixes.map((s) => code(s.suffix)).join(', ');
    const [route, also] = predefined.length === 1 ? ['route', 'also'] : ['routes', 'each also'];
    lines.push(`ServiceStack's predefined ${route} ${predefined.map((r) => code(r.path)).join(' and ')}${moved}, ${also} with ${suffixes}.`);
  }
  lines[lines.length - 1] += get;
  lines.push(`Every route is declared in the routes document (${code(routesDocument)}), each with \`x-variant-of: ${op.operationId}\`.`);
  return lines.join(' ');
}

/** Where the document declaring every route is served, relative to this one (design.md §2). */
export const routesDocument = 'openapi-routes.json';

const verbsOf = (item) => verbs.filter((m) => item[m]);

/**
 * Each operation at its own route with its negotiation (`format`, `callback`, `_`): what
 * both documents are built from. Throws SpecError on what the spec must not write (it is
 * generated).
 */
export function declareNegotiation(document) {
  const problems = [];
  const components = document.components ?? {};
  for (const name of Object.keys(edgeParameters)) {
    if (components.parameters?.[name]) problems.push(`spec/openapi.yaml: components.parameters.${name} is generated; remove it`);
  }
  const paths = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    paths[path] = { ...item };
    for (const method of verbsOf(item)) {
      const op = item[method];
      const where = `spec/openapi.yaml: ${method.toUpperCase()} ${path}`;
      if (op['x-variant-of']) problems.push(`${where}: x-variant-of is generated; remove it`);
      if (op.responses?.['405']) problems.push(`${where}: 405 is never an answer to the method an operation serves; remove it (the description says how other methods are answered)`);
      if (item.head || op.operationId?.endsWith('Head')) problems.push(`${where}: HEAD is generated for every GET; remove it`);
      paths[path][method] = op['x-edge'] === true ? op : withEdgeParameters(op);
    }
  }
  if (problems.length > 0) throw new SpecError(problems);
  return { ...document, paths, components: { ...components, parameters: { ...(components.parameters ?? {}), ...edgeParameters } } };
}

/**
 * The consumers' document (design.md §2): each operation once, at its own route, its
 * description naming the routes besides its own.
 */
export function describeRoutes(document) {
  const paths = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    paths[path] = { ...item };
    for (const method of verbsOf(item)) {
      const op = item[method];
      const hasPathParameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].some((p) => p.in === 'path');
      const note = routesNote(path, method, op, hasPathParameters);
      if (note !== undefined) paths[path][method] = { ...op, description: [op.description?.trimEnd(), note].filter(Boolean).join('\n\n') };
    }
  }
  return { ...document, paths };
}

/** Returns the routes document: the consumers' document with every variant route added; throws SpecError. */
export function addRouteVariants(document) {
  const problems = [];
  const components = document.components ?? {};
  const paths = {};
  const place = (path, method, op, itemParameters) => {
    paths[path] ??= itemParameters ? { parameters: itemParameters } : {};
    if (paths[path][method]) problems.push(`${method.toUpperCase()} ${path}: declared twice (a variant of ${op['x-variant-of']} collides)`);
    paths[path][method] = op;
  };
  const head = (op, suffixId) => {
    const { requestBody, ...rest } = withoutLive(op);
    return { ...rest, operationId: `${op.operationId}${suffixId}`, summary: `${op.summary ?? op.operationId} (HEAD)`, responses: forHead(op.responses, components.responses ?? {}) };
  };

  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of verbsOf(item)) {
      const op = item[method];
      if (op['x-edge'] === true) {
        // Served by the edge itself (the contract, its docs, metrics): declared as it is answered.
        place(path, method, op, item.parameters);
        if (method === 'get') place(path, 'head', head({ ...op, 'x-variant-of': op.operationId }, 'Head'), item.parameters);
        continue;
      }
      const id = op.operationId;
      const routes = otherRoutesOf(path, op).map((route) => route.tag === ''
        ? { ...route, parameters: item.parameters, op }
        : { ...route, parameters: pathParametersToQuery(item.parameters), op: { ...op, parameters: pathParametersToQuery(op.parameters) } });
      for (const route of routes) {
        const variant = (tag, extra) => ({ ...route.op, ...extra, operationId: `${id}${route.tag}${tag}`, 'x-variant-of': id });
        const own = route.tag === '' ? route.op : variant('', {});
        const answered = [{ path: route.path, op: own }];
        for (const suffix of route.suffixes) {
          answered.push({ path: `${route.path}${suffix.suffix}`, op: withoutLive(variant(suffix.tag, { 'x-format': suffix.format, responses: forSuffix(route.op.responses, suffix, components.headers ?? {}) })) });
        }
        for (const a of answered) {
          place(a.path, method, a.op, route.parameters);
          if (method === 'get') place(a.path, 'head', head({ ...a.op, 'x-variant-of': id }, 'Head'), route.parameters);
        }
      }
    }
    // Path-level keys other than operations (x-autoquery, summary) stay on the canonical item.
    for (const [key, value] of Object.entries(item)) {
      if (!verbs.includes(key) && key !== 'head' && key !== 'parameters') (paths[path] ??= {})[key] = value;
    }
  }
  if (problems.length > 0) throw new SpecError(problems);
  return { ...document, paths };
}
