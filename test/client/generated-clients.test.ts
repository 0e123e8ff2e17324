// Clients generated at test time from a running server's /openapi.json (the consumers'
// contract: each operation once, at its own route, design.md §2) by two generators a
// consumer is likely to pick, @hey-api/openapi-ts (its fetch client) and openapi-typescript
// + openapi-fetch, into test-output/clients/. Each calls every operation once per declared
// parameter (format=csv gives CSV, callback JSONP, Register's meta goes in the query string
// as deepObject pairs) and must get the declared answer: what a consumer's generated client
// sends is what the server reads.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import createFetchClient from 'openapi-fetch';
import { seedDemo } from '../../src/cli/demo-data.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const out = path.join(root, 'test-output/clients');
const bin = (name: string) => path.join(root, 'node_modules/.bin', name);
const admin = { userName: 'gen.admin', password: 'gen-admin-password' };

// Asynchronous: the server answering the generators runs in this same process.
const run = (file: string, args: string[]) => promisify(execFile)(file, args, { cwd: root });

/** What a consumer does: generate from the served document, then compile with the project's TypeScript. */
async function generate(specUrl: string): Promise<{ heyApi: string }> {
  fs.rmSync(out, { recursive: true, force: true });
  const hey = path.join(out, 'hey-api');
  const heyApi = async () => {
    await run(bin('openapi-ts'), ['-i', specUrl, '-o', hey, '-c', '@hey-api/client-fetch', '-s']);
    const sources = fs.readdirSync(hey, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => path.join(hey, f));
    await run(bin('tsc'), ['--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--rootDir', hey, '--outDir', path.join(hey, 'js'), ...sources]);
  };
  const openapiFetch = async () => {
    const fetchDir = path.join(out, 'openapi-fetch');
    await run(bin('openapi-typescript'), [specUrl, '-o', path.join(fetchDir, 'api.d.ts')]);
    // The generated types must serve a typed call, as a consumer writes it.
    fs.writeFileSync(path.join(fetchDir, 'typed.ts'), [
      "import createClient from 'openapi-fetch';",
      "import type { paths } from './api.js';",
      "const api = createClient<paths>({ baseUrl: 'http://localhost' });",
      "export const files = () => api.GET('/impianti/{ImpiantoId}/files', { params: { path: { ImpiantoId: 1 }, query: { format: 'json', callback: 'cb' } } });",
      "export const register = () => api.POST('/register', { params: { query: { meta: { source: 'web' } } }, body: { userName: 'x', password: 'y' } });",
      '',
    ].join('\n'));
    await run(bin('tsc'), ['--strict', '--noEmit', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', path.join(fetchDir, 'typed.ts')]);
  };
  // The two clients share nothing but the document: their generators and compilers run side by side.
  await Promise.all([heyApi(), openapiFetch()]);
  return { heyApi: path.join(hey, 'js') };
}

interface Call {
  readonly operationId: string;
  readonly method: string;
  readonly template: string;
  readonly parameter: string;
  readonly path: Record<string, unknown>;
  readonly query: Record<string, unknown>;
  /** Header parameters (If-None-Match), as the client sends them. */
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown> | undefined;
  readonly expect: 'json' | 'csv' | 'jsonp' | 'jsonl';
}

/** A value the schema allows, and that the server accepts for that name. */
function valueFor(name: string, schema: Json): unknown {
  const known: Record<string, unknown> = { after: '', include: 'Total', fields: 'Id', orderBy: 'Id', orderByDesc: 'Id', callback: 'cb', _: '1', continue: '/benvenuto', meta: { source: 'web' }, 'If-None-Match': '"not-the-current-tag"' };
  if (name in known) return known[name];
  if (schema['enum']) return schema['enum'][0];
  switch (schema['type']) {
    case 'integer': return Math.max(1, Number(schema['minimum'] ?? 1));
    case 'boolean': return true;
    case 'array': return schema['items']?.['type'] === 'integer' ? [1, 2] : ['a', 'b'];
    case 'object': return { source: 'web' };
    default: return 'a';
  }
}

/** Every (operation, declared parameter) pair, with the required rest filled in. */
function calls(document: Json, client: string): Call[] {
  const resolve = (node: Json): Json => (node?.['$ref'] ? resolve(node['$ref'].slice(2).split('/').reduce((n: Json, k: string) => n[k], document)) : node);
  const result: Call[] = [];
  let n = 0;
  for (const [template, item] of Object.entries(document['paths'] as Record<string, Json>)) {
    for (const method of ['get', 'post', 'put']) {
      const op = item[method] as Json | undefined;
      if (!op || op['x-variant-of'] || op['x-edge']) continue;
      // A parameter's schema may refer to its request schema's property (the query filters).
      const params = [...(item['parameters'] ?? []), ...(op['parameters'] ?? [])].map(resolve).map((p): Json => ({ ...p, schema: resolve(p['schema'] ?? {}) }));
      const required = params.filter((p) => p['required']);
      for (const p of params) {
        const values = p['name'] === 'format' ? p['schema']['enum'] : [valueFor(p['name'], p['schema'])];
        for (const value of values) {
          const query: Record<string, unknown> = {};
          const pathParams: Record<string, unknown> = {};
          const headers: Record<string, string> = {};
          for (const r of [...required, p]) {
            const v = r === p ? value : valueFor(r['name'], r['schema']);
            if (r['in'] === 'header') headers[r['name']] = String(v);
            else (r['in'] === 'path' ? pathParams : query)[r['name']] = v;
          }
          const operationId = op['operationId'] as string;
          const unique = `gen.${client}.${n++}`;
          const body = bodyFor(operationId, unique, query);
          result.push({
            operationId, method, template, parameter: p['name'], path: pathParams, query, headers, body,
            expect: p['name'] === 'callback' ? 'jsonp' : value === 'csv' ? 'csv' : op['x-export'] === true ? 'jsonl' : 'json',
          });
        }
      }
    }
  }
  return result;
}

/** A valid body for the operation; a Register field sent in the query string is left out of it. */
function bodyFor(operationId: string, unique: string, query: Record<string, unknown>): Record<string, unknown> | undefined {
  switch (operationId) {
    case 'Register':
    case 'RegisterPut': {
      // The query string fills only what the body left out (design.md §5).
      const body: Record<string, unknown> = { userName: unique, email: `${unique}@example.it`, password: 'correct-horse-1' };
      for (const k of Object.keys(query)) delete body[k];
      if ('email' in query) query['email'] = `${unique}@example.it`;
      if ('userName' in query) query['userName'] = unique;
      return body;
    }
    case 'Authenticate': return { userName: admin.userName, password: admin.password };
    case 'GetAccessToken': return { refreshToken: '(fresh)' };
    case 'AssignRoles':
    case 'UnAssignRoles': return { userName: admin.userName, roles: ['Admin'] };
    case 'CaratteristicaGruppoQuery':
    case 'SoggettoRecapitoQuery': return { take: 2 };
    default: return undefined;
  }
}

function checkAnswer(c: Call, status: number, contentType: string | null, text: string): string | undefined {
  const where = `${c.method.toUpperCase()} ${c.template} (${c.parameter})`;
  if (status !== 200) return `${where}: ${status} ${text.slice(0, 200)}`;
  const media = (contentType ?? '').split(';')[0];
  const want = { json: 'application/json', csv: 'text/csv', jsonp: 'application/javascript', jsonl: 'application/x-ndjson' }[c.expect];
  if (media !== want) return `${where}: ${media}, expected ${want}`;
  if (c.expect === 'jsonp' && !text.startsWith('/**/cb(')) return `${where}: not JSONP: ${text.slice(0, 60)}`;
  return undefined;
}

let generated: { heyApi: string } | undefined;

forEachDialect('clients generated from the served contract', (dialect) => {
  let s: TestServer;
  let document: Json;
  let token: string;
  before(async function () {
    this.timeout(180_000);
    s = await startServer({ dialect, env: { ADMIN_USERNAME: admin.userName, ADMIN_PASSWORD: admin.password } });
    await seedDemo(s.db);
    document = (await s.request('GET', '/openapi.json')).body as Json;
    generated ??= await generate(`${s.baseUrl}/openapi.json`);
    token = (await s.request('POST', '/auth/credentials', { json: admin })).body.bearerToken;
  });
  after(() => s.close());

  /** GetAccessToken spends its token: each call gets a fresh one. */
  const prepared = async (c: Call): Promise<Call> => {
    if (c.operationId !== 'GetAccessToken') return c;
    const fresh = (await s.request('POST', '/auth/credentials', { json: admin })).body.refreshToken as string;
    return { ...c, body: { refreshToken: fresh } };
  };

  it('declares each operation once, at its own route: no variant, no HEAD, at most 325 kB', async () => {
    const operations = Object.values(document['paths'] as Record<string, Json>).flatMap((item) => Object.entries(item).filter(([m]) => ['get', 'put', 'post', 'delete', 'patch', 'head'].includes(m)));
    expect(operations.filter(([m, op]) => m === 'head' || op['x-variant-of'])).to.deep.equal([]);
    expect(operations.length).to.be.at.most(30);
    const ids = operations.map(([, op]) => op['operationId'] as string);
    const suffixed = ids.filter((id) => ['Json', 'Csv', 'Jsonl', 'Reply', 'Api', 'Head'].some((tag) => ids.includes(id.slice(0, -tag.length)) && id.endsWith(tag)));
    expect(suffixed, 'operationIds that differ only by a route suffix').to.deep.equal([]);
    // The bound design.md §2 sets: about a quarter of the routes document.
    expect(JSON.stringify(document, null, 2).length).to.be.at.most(325_000);
  });

  it('@hey-api/openapi-ts: every operation with every declared parameter gets the declared answer', async function () {
    this.timeout(120_000);
    const sdk = await import(path.join(generated!.heyApi, 'sdk.gen.js')) as Record<string, (o: Json) => Promise<{ response: Response; data: unknown }>>;
    const { createClient } = await import(path.join(generated!.heyApi, 'client/index.js')) as { createClient: (c: Json) => unknown };
    const client = createClient({ baseUrl: s.baseUrl });
    const wrong: string[] = [];
    const all = calls(document, 'hey');
    for (const call of all) {
      const c = await prepared(call);
      const fn = sdk[c.operationId[0]!.toLowerCase() + c.operationId.slice(1)];
      if (!fn) { wrong.push(`${c.operationId}: no SDK function`); continue; }
      const { response, data } = await fn({ client, path: c.path, query: c.query, body: c.body, headers: { Authorization: `Bearer ${token}`, ...c.headers }, parseAs: 'text' });
      const problem = checkAnswer(c, response.status, response.headers.get('content-type'), String(data ?? ''));
      if (problem) wrong.push(problem);
    }
    expect(wrong).to.deep.equal([]);
    expect(new Set(all.map((c) => c.operationId)).size).to.equal(18);
  });

  it('openapi-typescript + openapi-fetch: every operation with every declared parameter gets the declared answer', async function () {
    this.timeout(120_000);
    const api = createFetchClient<Json>({ baseUrl: s.baseUrl });
    const wrong: string[] = [];
    for (const call of calls(document, 'fetch')) {
      const c = await prepared(call);
      const send = (api as unknown as Record<string, (url: string, init: Json) => Promise<{ response: Response; data?: unknown; error?: unknown }>>)[c.method.toUpperCase()]!;
      const { response, data, error } = await send(c.template, { params: { path: c.path, query: c.query, header: c.headers }, body: c.body, headers: { Authorization: `Bearer ${token}` }, parseAs: 'text' });
      const problem = checkAnswer(c, response.status, response.headers.get('content-type'), String(data ?? error ?? ''));
      if (problem) wrong.push(problem);
    }
    expect(wrong).to.deep.equal([]);
  });

  it('Register\'s meta sent by a generated client in the query string is stored', async () => {
    const rows = await s.knex('app_user').where('user_name', 'like', 'gen.%').whereNotNull('meta').select('meta');
    expect(rows.map((r: { meta: string }) => JSON.parse(r.meta)).filter((m: Json) => m['source'] === 'web').length).to.be.greaterThan(0);
  });
});
