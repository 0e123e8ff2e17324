// The contract's lint rules: Spectral's OpenAPI rules and the OWASP API Security Top 10
// (2023) ruleset, both from the pinned packages, so the lint runs offline. Run from the
// repository root (the overrides read both served documents from there), on each:
//   npx spectral lint generated/openapi.json -r spectral-ruleset.mjs
//   npx spectral lint generated/openapi-routes.json -r spectral-ruleset.mjs
// test/unit/contract-ruleset.test.ts runs it in `make test` and fails on any error.
//
// No rule is turned off for the whole document. Each finding that stays is a named
// exception below: one rule, the operations (every route of each: suffix, predefined and
// HEAD variants) or schema it applies to, and why. spec/design.md §3 lists them.
import { readFileSync } from 'node:fs';
import { oas } from '@stoplight/spectral-rulesets';
import owasp from '@stoplight/spectral-owasp-ruleset';

/** The consumers' contract and the routes document (design.md §2). */
const contractFiles = ['generated/openapi.json', 'generated/openapi-routes.json'];

const queries = ['CaratteristicaGruppoQuery', 'CaratteristicaGruppoQueryGet', 'SoggettoRecapitoQuery', 'SoggettoRecapitoQueryGet'];
const exports = queries.map((q) => q.replace(/Query(Get)?$/, 'QueryExport$1'));
const edge = ['OpenApiJson', 'OpenApiRoutesJson', 'OpenApiYaml', 'Docs', 'DocsAsset', 'ServiceStackTypeScriptDtos', 'Metrics'];

/** @type {{ rule: string, operations?: string[], pointers?: string[], media?: string, reason: string }[]} */
const exceptions = [
  {
    rule: 'owasp:api1:2023-no-numeric-ids',
    operations: ['GetImpiantoFilesRequest', ...queries, ...exports],
    // The queries' parameters refer to their request schema's properties, where the ids are found.
    pointers: ['CaratteristicaGruppoQuery', 'SoggettoRecapitoQuery'].flatMap((q) => [q, `${q}Export`]).map((name) => `#/components/schemas/${name}`),
    reason: 'Integer ids are the contract of the ServiceStack service this one replaces; access is by role, checked before any lookup.',
  },
  {
    rule: 'owasp:api2:2023-write-restricted',
    operations: ['Register', 'RegisterPut'],
    reason: 'Register is public by nature: it is how an account comes to exist. It is rate-limited per client.',
  },
  {
    rule: 'owasp:api2:2023-write-restricted',
    operations: ['GetAccessToken'],
    reason: 'The refresh token in the body is the credential; a bearer token is what it renews, so none can be required.',
  },
  {
    rule: 'owasp:api4:2023-rate-limit',
    operations: queries,
    reason: 'The queries carry no rate limit of their own: they are Admin-only and bounded by MAX_TAKE, the statement timeout and the pool.',
  },
  {
    rule: 'owasp:api4:2023-rate-limit',
    operations: ['GetImpiantoFilesRequest'],
    reason: 'One indexed lookup for a caller with a role, bounded by the statement timeout and the pool.',
  },
  {
    rule: 'owasp:api4:2023-rate-limit',
    operations: ['GetAccessToken', 'Logout', 'AssignRoles', 'UnAssignRoles'],
    reason: 'Each needs a token (a refresh token of 256 random bits, or a bearer token) and costs one indexed write; no guess can succeed, so there is nothing to slow down.',
  },
  {
    rule: 'owasp:api4:2023-rate-limit',
    operations: ['Health', 'Ready', ...edge],
    reason: 'Probes and static files for the balancer, the monitoring and the documentation: no database work beyond one ping.',
  },
  {
    rule: 'owasp:api4:2023-rate-limit',
    pointers: ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'NotAcceptable', 'PayloadTooLarge', 'UnsupportedMediaType', 'Healthy'].map((r) => `#/components/responses/${r}`),
    reason: 'The shared answers serve the operations above, which carry no limit; a limited operation cites the copies made for its policy (BadRequestRegister), with the RateLimit fields.',
  },
  {
    rule: 'owasp:api4:2023-string-limit',
    pointers: ['#/components/schemas/ResponseStatus/properties/message', '#/components/schemas/ResponseStatus/properties/stackTrace', '#/components/schemas/ResponseError/properties/fieldName', '#/components/schemas/ResponseError/properties/message'],
    reason: 'An error names an unknown property as the client sent it, so only the 1 MiB body limit bounds it (and a stack trace only with DEBUG=true).',
  },
  {
    rule: 'owasp:api4:2023-array-limit',
    pointers: ['#/components/schemas/ResponseStatus/properties/errors'],
    reason: 'One field error per broken rule, unknown properties included: the 1 MiB body limit bounds them.',
  },
  {
    rule: 'owasp:api4:2023-string-limit',
    pointers: ['#/components/schemas/GetAccessToken/properties/refreshToken'],
    reason: 'Any malformed refresh token, whatever its length, is 401 (§4): a length limit answering 400 would tell a prober which tokens are well-formed. The 1 MiB body limit bounds it.',
  },
  {
    rule: 'owasp:api4:2023-string-limit',
    operations: ['OpenApiYaml', 'Docs', 'DocsAsset', 'ServiceStackTypeScriptDtos', 'Metrics'],
    reason: 'The body is a whole file (the contract, a page, a script, the metrics), not a field.',
  },
  {
    rule: 'owasp:api4:2023-string-limit',
    pointers: ['#/components/schemas/Jsonp'],
    reason: 'A JSONP answer is a whole JSON body (a page of up to MAX_TAKE rows) wrapped in a call, not a field.',
  },
  {
    rule: 'owasp:api4:2023-string-limit',
    pointers: ['#/components/schemas/LiveEvents'],
    reason: 'A live answer is a stream of whole answers that lasts as long as its access token, not a field; a client that leaves more than 1 MiB unread is dropped.',
  },
  {
    rule: 'owasp:api4:2023-string-limit',
    operations: queries,
    media: 'text/csv',
    reason: 'The CSV answer is a whole page of up to MAX_TAKE rows, not a field.',
  },
  {
    rule: 'owasp:api4:2023-string-limit',
    operations: exports,
    media: 'text/csv',
    reason: 'An export is every row the filter matches, streamed in flat memory: the data, not the request, decides its length.',
  },
  {
    rule: 'owasp:api4:2023-string-limit',
    operations: exports,
    media: 'application/x-ndjson',
    reason: 'An export is every row the filter matches, streamed in flat memory: the data, not the request, decides its length.',
  },
  {
    rule: 'owasp:api4:2023-array-limit',
    pointers: ['#/components/schemas/GetImpiantoFilesResponse/properties/contents'],
    reason: 'The children of one folder: the data, not the request, decides how many there are (no paging in the replaced contract).',
  },
];

/** Every path item an operation answers on: its own route and its variants (`x-variant-of`). */
function routesOf(document, operationIds) {
  const wanted = new Set(operationIds);
  const found = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const op of Object.values(item)) {
      if (op && typeof op === 'object' && (wanted.has(op.operationId) || wanted.has(op['x-variant-of']))) {
        found.push(path);
        break;
      }
    }
  }
  return found;
}

// A JSON pointer in a URI fragment: a path template's braces are percent-encoded.
const pointer = (path) => `#/paths/${encodeURIComponent(path.replace(/~/g, '~0').replace(/\//g, '~1')).replace(/%7E/g, '~')}`;

function overrides(contractFile, document) {
  const known = new Set(Object.values(document.paths ?? {}).flatMap((item) => Object.values(item).map((op) => op?.operationId)));
  return exceptions.map((e) => {
    // An exception for an operation that no longer exists would excuse nothing, silently.
    const unknown = (e.operations ?? []).filter((id) => !known.has(id));
    if (unknown.length > 0) throw new Error(`spectral-ruleset.mjs: ${e.rule}: no operation ${unknown.join(', ')} in ${contractFile}`);
    const paths = routesOf(document, e.operations ?? []);
    const where = [...paths.map(pointer), ...(e.pointers ?? [])];
    // `media`: only that body of the operations' 200 answers, not the rest of their routes.
    const files = e.media
      ? paths.flatMap((p) => ['get', 'post'].map((m) => `${contractFile}${pointer(p)}/${m}/responses/200/content/${e.media.replace(/\//g, '~1')}`))
      : where.map((w) => `${contractFile}${w}`);
    return { files, rules: { [e.rule]: 'off' } };
  });
}

export default {
  extends: [[oas, 'recommended'], [owasp, 'recommended']],
  overrides: contractFiles.flatMap((file) => overrides(file, JSON.parse(readFileSync(file, 'utf8')))),
};
