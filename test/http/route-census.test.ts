// Route census (design.md §2, §11): the (path, method) pairs the server answers with
// anything but 404/405 are exactly the pairs its routes document (/openapi-routes.json) declares. Every declared
// path is probed with all eight methods, and a sample of undeclared paths (wrong suffixes,
// unknown DTO names, near misses) must be answered 404 or 405 whatever the method.
import { expect } from 'chai';
import http from 'node:http';
import { startServer, type TestServer } from '../support/server.js';

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One raw request: fetch refuses TRACE, and the census must send every method as is. */
function probe(baseUrl: string, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${path}`, { method, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A concrete path for a template: a path parameter takes an example of its schema. */
function concrete(template: string, item: Json): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const ops = Object.values(item).filter((o): o is Json => typeof o === 'object' && o !== null && Array.isArray(o['parameters']));
    const param = ops.flatMap((o) => o['parameters'] as Json[]).find((p) => p['in'] === 'path' && p['name'] === name);
    const schema = (param?.['schema'] ?? {}) as Json;
    return String(schema['enum']?.[0] ?? param?.['example'] ?? 1);
  });
}

const undeclared = [
  '/', '/impianti/1/files.csv', '/impianti/1/files/', '/impianti/1', '/health.csv', '/ready.csv', '/register.csv',
  '/auth/credentials.csv', '/json/reply/Bogus', '/api/Bogus', '/json/reply/Logout', '/api/Health', '/json/reply/Ready',
  '/json/reply/Register.csv', '/api/GetImpiantoFilesRequest.csv', '/json/reply/SoggettoRecapitoQuery.xml',
  '/docs/', '/docs/package.json', '/openapi.json.json', '/metrics.json', '/api/', '/json/reply/',
];

describe('route census', function () {
  this.timeout(120_000);
  let s: TestServer;
  let served: Json;
  before(async () => {
    s = await startServer({ dialect: 'sqlite' });
    // The routes document declares every route the server answers (design.md §2).
    served = (await s.request('GET', '/openapi-routes.json')).body as Json;
  });
  after(() => s.close());

  it('every declared path answers exactly its declared methods, HEAD included wherever GET is', async () => {
    const wrong: string[] = [];
    let pairs = 0;
    for (const [template, item] of Object.entries(served['paths'] as Record<string, Json>)) {
      const path = concrete(template, item);
      const declared = methods.filter((m) => item[m.toLowerCase()] !== undefined);
      if (declared.includes('GET')) expect(declared, `${template}: HEAD where GET is`).to.include('HEAD');
      const answered: string[] = [];
      for (const method of methods) {
        const status = await probe(s.baseUrl, method, path);
        if (status !== 404 && status !== 405) answered.push(method);
      }
      pairs += declared.length;
      if (answered.join() !== declared.join()) wrong.push(`${path}: declares ${declared.join(' ')}, answers ${answered.join(' ')}`);
    }
    expect(wrong).to.deep.equal([]);
    expect(pairs, 'the contract declares its routes').to.be.greaterThan(100);
  });

  it('no undeclared path is answered, whatever the method', async () => {
    const answered: string[] = [];
    for (const path of undeclared) {
      expect(served['paths'][path], `${path} is really undeclared`).to.equal(undefined);
      for (const method of methods) {
        const status = await probe(s.baseUrl, method, path);
        if (status !== 404 && status !== 405) answered.push(`${method} ${path} -> ${status}`);
      }
    }
    expect(answered).to.deep.equal([]);
  });

  it('a variant route reaches its operation: the same answer as the canonical route', async () => {
    const token = await s.tokenFor(['Admin']);
    const canonical = await s.request('GET', '/impianti/1/files', { token });
    for (const path of ['/impianti/1/files.json', '/json/reply/GetImpiantoFilesRequest?impiantoId=1', '/api/GetImpiantoFilesRequest.json?ImpiantoId=1']) {
      const r = await s.request('GET', path, { token });
      expect(r.status, path).to.equal(canonical.status);
      expect(r.body, path).to.deep.equal(canonical.body);
    }
    const csv = await s.request('POST', '/api/SoggettoRecapitoQuery.csv', { token, json: { take: 2, fields: 'Id' } });
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).to.equal('attachment; filename="SoggettoRecapitoQuery.csv"');
  });

  it('every variant names its operation, and only operations the handlers serve', async () => {
    const ids = new Set<string>();
    const variants: Array<[string, string]> = [];
    for (const item of Object.values(served['paths'] as Record<string, Json>)) {
      for (const op of Object.values(item).filter((o): o is Json => typeof o === 'object' && o !== null && 'operationId' in o)) {
        ids.add(op['operationId']);
        if (op['x-variant-of']) variants.push([op['operationId'], op['x-variant-of']]);
      }
    }
    expect(variants.filter(([, of]) => !ids.has(of))).to.deep.equal([]);
    expect(variants.length).to.be.greaterThan(80);
  });
});
