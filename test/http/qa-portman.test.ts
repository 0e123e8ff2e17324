// QA's Portman and newman run (scripts/qa/portman.mjs) against a fresh demo server, as
// `make run` seeds it with the README's admin: every operation of /openapi.json requested, each
// body that may be a form once more as one, no assertion failed; every request example of the
// contract (each body's media types, the parameters' examples sent together as Swagger UI's
// "Try it out" fills them in) answers a status it declares, in any order and again, and the
// queries' examples find their example record. And the strictness the run adds to the
// contract: an undeclared property fails, a declared map not.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import type * as JsonLinesTests from '../../scripts/qa/json-lines-tests.mjs';
import type * as StrictDocument from '../../scripts/qa/strict-document.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const load = <T>(name: string) => import(new URL(`../../../scripts/qa/${name}`, import.meta.url).href) as Promise<T>;
// The README's `make run` line: the contract's sign-in and role examples use this admin.
const readmeAdmin = /ADMIN_USERNAME=(\S+) ADMIN_PASSWORD='([^']+)' make run/.exec(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
const admin = { user: readmeAdmin?.[1] ?? '', password: readmeAdmin?.[2] ?? '' };

type Json = Record<string, any>;
const verbs = ['get', 'put', 'post', 'delete', 'patch'];
const form = 'application/x-www-form-urlencoded';

const resolverOf = (contract: Json) => {
  const resolve = (o: Json): Json => (o?.['$ref'] ? resolve((o['$ref'] as string).split('/').slice(1).reduce((at: Json, k) => at[k], contract)) : o);
  return resolve;
};

/**
 * The request an operation's examples make, as Swagger UI's "Try it out" fills it in: every
 * parameter with an example (its own, or its schema's), arrays comma-separated (`style: form`,
 * `explode: false`), objects as deepObject pairs.
 */
function exampleRequest(contract: Json, route: string, method: string): { target: string; headers: Record<string, string> } {
  const resolve = resolverOf(contract);
  const item = contract['paths'][route] as Json;
  const op = item[method] as Json;
  let target = route;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of [...(item['parameters'] ?? []), ...(op['parameters'] ?? [])].map(resolve) as Json[]) {
    const example = p['example'] ?? resolve(p['schema'] ?? {})['example'];
    if (example === undefined) continue;
    if (p['in'] === 'path') target = target.replace(`{${p['name']}}`, encodeURIComponent(String(example)));
    else if (p['in'] === 'header') headers[p['name']] = String(example);
    else if (Array.isArray(example)) query.append(p['name'], example.join(','));
    else if (typeof example === 'object') for (const [k, v] of Object.entries(example as Json)) query.append(`${p['name']}[${k}]`, String(v));
    else if (example !== '') query.append(p['name'], String(example));
  }
  return { target: query.size > 0 ? `${target}?${query}` : target, headers };
}

/** A form body as the media type encodes it: a list as repeated keys, a deepObject as `name[key]=value`. */
function formBody(example: Json, encoding: Json = {}): string {
  const pairs = new URLSearchParams();
  for (const [name, value] of Object.entries(example)) {
    if (Array.isArray(value)) value.forEach((v) => pairs.append(name, String(v)));
    else if (value !== null && typeof value === 'object') {
      if (encoding[name]?.['style'] !== 'deepObject') throw new Error(`${name}: an object in a form needs encoding style deepObject`);
      for (const [k, v] of Object.entries(value as Json)) pairs.append(`${name}[${k}]`, String(v));
    } else pairs.append(name, String(value));
  }
  return pairs.toString();
}

/**
 * Sends each operation's examples (parameters, and each media type's body example in turn),
 * with the admin's token where one is needed; `operationId[media]:status:declared` each.
 */
async function sendExamples(url: string, contract: Json, order: Array<[string, string]>, token: string): Promise<string[]> {
  const resolve = resolverOf(contract);
  const answers: string[] = [];
  for (const [route, method] of order) {
    const op = contract['paths'][route][method] as Json;
    const { target, headers } = exampleRequest(contract, route, method);
    if ((op['security'] as Json[] | undefined)?.some((s) => s['bearerAuth'])) headers['authorization'] = `Bearer ${token}`;
    const content = (op['requestBody'] ? resolve(op['requestBody'])['content'] : { none: {} }) as Record<string, Json>;
    for (const [media, body] of Object.entries(content)) {
      const sent = media === 'none' || body['example'] === undefined ? undefined : media === form ? formBody(body['example'], body['encoding']) : JSON.stringify(body['example']);
      const r = await fetch(url + target, { method: method.toUpperCase(), headers: { ...headers, ...(sent === undefined ? {} : { 'content-type': media }) }, body: sent });
      await r.arrayBuffer();
      const name = `${op['operationId']}${media === 'none' || media === 'application/json' ? '' : `[${media === form ? 'form' : media}]`}`;
      answers.push(`${name}:${r.status}:${media !== 'none' && sent === undefined ? 'no body example' : op['responses'][String(r.status)] ? 'declared' : 'undeclared'}`);
    }
  }
  return answers;
}

interface Report { requests: number; requestsFailed: number; assertions: number; failures: number; formVariations: number; formRequests: number; operations: number; requested: string[]; missing: string[]; disabledTests: string[]; ms: number }

/** `make run`'s demo server on a free port: seed-demo, then the server, with an admin. */
async function startDemo(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const env = { PATH: process.env.PATH ?? '', HOME: dir, SQLITE_FILE: path.join(dir, 'impianti.sqlite'), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ADMIN_USERNAME: admin.user, ADMIN_PASSWORD: admin.password };
  const seeded = spawnSync(process.execPath, [path.join(root, 'dist/src/cli/seed-demo.js')], { env, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`demo seed failed:\n${seeded.stderr}`);
  const child = spawn(process.execPath, [path.join(root, 'dist/src/server/main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start in 30 s:\n${log}`)), 30_000);
    const onData = (chunk: Buffer) => {
      log += String(chunk);
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(log);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`the service exited with ${code}:\n${log}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

function runQa(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'qa:portman', '--', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, QA_ADMIN_PASSWORD: admin.password } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('QA: Portman contract tests run by newman', function () {
  this.timeout(240_000);
  let dir: string;
  let demo: { url: string; child: ChildProcess };
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-qa-test-'));
    demo = await startDemo(dir);
  });
  after(async () => {
    if (demo) await new Promise((r) => { demo.child.once('exit', r); demo.child.kill('SIGTERM'); });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('requests every operation of /openapi.json against the demo server with 0 failures', async () => {
    const report = path.join(dir, 'report.json');
    const r = await runQa(['--url', demo.url, '--admin-user', admin.user, '--admin-password-env', 'QA_ADMIN_PASSWORD', '--report', report]);
    expect(r.code, r.output.slice(-6000)).to.equal(0);
    const got = JSON.parse(fs.readFileSync(report, 'utf8')) as Report;
    const served = (await (await fetch(`${demo.url}/openapi.json`)).json()) as Json;
    const every = Object.values(served['paths'] as Json).flatMap((item) => verbs.flatMap((m) => item[m]?.operationId ?? [])).sort();
    expect(got.requested).to.deep.equal(every);
    // Each body that may be a form is sent once more, as one.
    const resolve = resolverOf(served);
    const forms = Object.values(served['paths'] as Json).flatMap((item) => verbs.filter((m) => item[m]?.requestBody && resolve(item[m].requestBody)['content'][form]));
    expect(forms).to.have.length(10);
    expect(got).to.include({ failures: 0, requestsFailed: 0, requests: every.length + forms.length, formVariations: forms.length, formRequests: forms.length });
    expect(got.missing).to.deep.equal([]);
    expect(got.disabledTests).to.deep.equal([]);
    // Status and content type on every operation, and JSON body and schema on most.
    expect(got.assertions).to.be.greaterThan(3 * every.length);
    expect(r.output).to.match(/every JSON Lines line matches x-item-schema/);
    expect(r.output, 'tokens stay out of the log').not.to.match(/eyJ[\w-]+\.eyJ/);
  });

  it('every request example of /openapi.json answers a status it declares, in any order and again', async () => {
    const contract = (await (await fetch(`${demo.url}/openapi.json`)).json()) as Json;
    const signIn = contract['paths']['/auth/credentials']['post']['requestBody']['content']['application/json']['example'];
    const session = await fetch(`${demo.url}/auth/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(signIn) });
    expect(session.status, 'the sign-in example signs in').to.equal(200);
    const { bearerToken } = (await session.json()) as { bearerToken: string };
    const operations = Object.entries(contract['paths'] as Json).flatMap(([route, item]) => verbs.filter((m) => item[m]).map((m): [string, string] => [route, m]));
    for (const order of [operations, [...operations].reverse(), operations]) {
      const answers = await sendExamples(demo.url, contract, order, bearerToken);
      expect(answers.filter((a) => !a.endsWith(':declared')), answers.join(' ')).to.deep.equal([]);
      // A 2xx where the example can repeat one; GetAccessToken's token is nobody's, Register's name is taken after
      // once, and past 10 registrations a minute from one client (Portman's four included) Register answers its 429.
      const failed = answers.filter((a) => !/:2\d\d:/.test(a)).map((a) => a.split(':').slice(0, 2).join(':'));
      expect(failed.filter((a) => !/^(GetAccessToken(\[form\])?:401|Register(Put)?(\[form\])?:(409|429))$/.test(a)), answers.join(' ')).to.deep.equal([]);
      const forms = operations.filter(([route, m]) => contract['paths'][route][m]['requestBody']).length;
      expect(answers.filter((a) => a.includes('[form]')), 'every form body has its example').to.have.length(forms);
    }
  });

  it("finds the example record with each query's examples, sent together as Swagger UI's \"Try it out\" fills them in", async () => {
    const contract = (await (await fetch(`${demo.url}/openapi.json`)).json()) as Json;
    const signIn = contract['paths']['/auth/credentials']['post']['requestBody']['content']['application/json']['example'];
    const { bearerToken } = (await (await fetch(`${demo.url}/auth/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(signIn) })).json()) as { bearerToken: string };
    const queries = Object.entries(contract['paths'] as Json).filter(([, item]) => item['get']?.['tags']?.includes('Query'));
    expect(queries).to.have.length(4);
    for (const [route, item] of queries) {
      const { target, headers } = exampleRequest(contract, route, 'get');
      const ok = item['get']['responses']['200']['content'];
      // The answers' example record (x-example-record in spec/openapi.yaml), its key first.
      const record = (ok['application/json']?.['example']?.['results'] ?? [JSON.parse(ok['application/x-ndjson']['example'].split('\n')[0])])[0] as Json;
      const r = await fetch(demo.url + target, { headers: { ...headers, authorization: `Bearer ${bearerToken}` } });
      const text = await r.text();
      expect(r.status, `${route}: ${text}`).to.equal(200);
      const rows = (r.headers.get('content-type')!.startsWith('application/x-ndjson') ? text.trim().split('\n').slice(0, -1).map((l) => JSON.parse(l)) : JSON.parse(text)['results']) as Json[];
      expect(rows.map((row) => row['id']), `${route}?${target.split('?')[1]}`).to.deep.equal([record['id']]);
      expect(target.split('?')[1]!.split('&').length, `${route}: every filter has an example`).to.be.greaterThan(40);
    }
  });

  it('closes the objects that list their properties, not maps or free-form objects', async () => {
    const { strictDocument } = await load<typeof StrictDocument>('strict-document.mjs');
    const schema = strictDocument({
      type: 'object',
      properties: { id: { type: 'integer' }, meta: { type: 'object', additionalProperties: { type: 'string' } }, document: { type: 'object' } },
    });
    const validate = new Ajv({ strict: false }).compile(schema);
    expect(validate({ id: 1, meta: { any: 'key' }, document: { openapi: '3.0.3' } })).to.equal(true);
    expect(validate({ id: 1, undeclared: true })).to.equal(false);
  });

  it('finds every JSON Lines answer of the contract, with an item schema free of $ref', async () => {
    const { jsonLinesOperations } = await load<typeof JsonLinesTests>('json-lines-tests.mjs');
    const contract = JSON.parse(fs.readFileSync(path.join(root, 'generated/openapi.json'), 'utf8')) as unknown;
    const ops = jsonLinesOperations(contract);
    expect(ops.map((op) => op.id).sort()).to.deep.equal(['CaratteristicaGruppoQueryExport', 'CaratteristicaGruppoQueryExportGet', 'SoggettoRecapitoQueryExport', 'SoggettoRecapitoQueryExportGet']);
    for (const op of ops) expect(JSON.stringify(op.itemSchema)).not.to.include('$ref');
  });
});
