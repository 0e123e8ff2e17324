// Emits every route the server answers besides the canonical ones, derived from the
// canonical operations so that no route is copied by hand (design.md §2, §11):
//   - the `.json` suffix on every operation route, and `.csv` where the operation serves CSV,
//     each answering one media type;
//   - HEAD wherever GET is answered;
//   - ServiceStack's predefined routes `/json/reply/{Name}` and `/api/{Name}` for every
//     operation that names its request DTO (`x-servicestack-name`), path parameters moving
//     to the query string as ServiceStack clients send them;
//   - the `format`, `callback` and `_` query parameters every operation reads.
// Each variant keeps its canonical operation's parameters, body, access and errors, carries
// `x-variant-of: <canonical operationId>`, and is served by the canonical handler.
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

/** A 200 answering one suffix's media types; the error responses stay as they are. */
function forSuffix(responses, suffix) {
  const ok = responses['200'];
  if (!ok?.content) return responses;
  const content = Object.fromEntries(Object.entries(ok.content).filter(([media]) => suffix.media.includes(media)));
  return { ...responses, 200: { ...ok, content } };
}

/** HEAD answers the GET's statuses and headers, never a body (shared responses resolved). */
function forHead(responses, shared) {
  return Object.fromEntries(
    Object.entries(responses).map(([status, r]) => {
      const resolved = r.$ref ? shared[r.$ref.split('/').pop()] ?? {} : r;
      return [status, { description: resolved.description ?? status, ...(resolved.headers ? { headers: resolved.headers } : {}) }];
    }),
  );
}

/** ServiceStack clients put every property of a GET in the query string, path ones too. */
function pathParametersToQuery(parameters) {
  return (parameters ?? []).map((p) => (p.in === 'path' ? { ...p, name: p.name[0].toLowerCase() + p.name.slice(1), in: 'query' } : p));
}

/** Returns a copy of the document with every variant route added; throws SpecError. */
export function addRouteVariants(document) {
  const problems = [];
  const components = document.components ?? {};
  for (const name of Object.keys(edgeParameters)) {
    if (components.parameters?.[name]) problems.push(`spec/openapi.yaml: components.parameters.${name} is generated; remove it`);
  }
  const paths = {};
  const place = (path, method, op, itemParameters) => {
    paths[path] ??= itemParameters ? { parameters: itemParameters } : {};
    if (paths[path][method]) problems.push(`${method.toUpperCase()} ${path}: declared twice (a variant of ${op['x-variant-of']} collides)`);
    paths[path][method] = op;
  };
  const head = (op, suffixId) => {
    const { requestBody, ...rest } = op;
    return { ...rest, operationId: `${op.operationId}${suffixId}`, summary: `${op.summary ?? op.operationId} (HEAD)`, responses: forHead(op.responses, components.responses ?? {}) };
  };

  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of verbs.filter((m) => item[m])) {
      const op = item[method];
      const where = `spec/openapi.yaml: ${method.toUpperCase()} ${path}`;
      if (op['x-variant-of']) problems.push(`${where}: x-variant-of is generated; remove it`);
      if (op.responses?.['405']) problems.push(`${where}: 405 is never an answer to the method an operation serves; remove it (the description says how other methods are answered)`);
      if (item.head || op.operationId?.endsWith('Head')) problems.push(`${where}: HEAD is generated for every GET; remove it`);
      if (op['x-edge'] === true) {
        // Served by the edge itself (the contract, its docs, metrics): declared as it is answered.
        place(path, method, op, item.parameters);
        if (method === 'get') place(path, 'head', head({ ...op, 'x-variant-of': op.operationId }, 'Head'), item.parameters);
        continue;
      }
      const canonical = withEdgeParameters(op);
      const id = canonical.operationId;
      const routes = [{ path, tag: '', parameters: item.parameters, op: canonical }];
      const name = op['x-servicestack-name'];
      for (const { prefix, tag } of name ? predefinedPrefixes : []) {
        const predefined = `${prefix}${name}`;
        if (predefined === path) continue;
        const moved = { ...canonical, parameters: pathParametersToQuery(canonical.parameters) };
        routes.push({ path: predefined, tag, parameters: pathParametersToQuery(item.parameters), op: moved });
      }
      for (const route of routes) {
        const variant = (tag, extra) => ({ ...route.op, ...extra, operationId: `${id}${route.tag}${tag}`, 'x-variant-of': id });
        const own = route.tag === '' ? route.op : variant('', {});
        const answered = [{ path: route.path, op: own }];
        for (const suffix of suffixesOf(op)) {
          answered.push({ path: `${route.path}${suffix.suffix}`, op: variant(suffix.tag, { 'x-format': suffix.format, responses: forSuffix(route.op.responses, suffix) }) });
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
  return { ...document, paths, components: { ...components, parameters: { ...(components.parameters ?? {}), ...edgeParameters } } };
}
