// express carries every request (design.md §2): one middleware added in one place, before
// the routers, reaches every operation of the contract, the queries included, and the edge
// routes and 404s too.
import { expect } from 'chai';
import type { RequestHandler } from 'express';
import { loadContract } from '../../src/http/contract.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

const probe: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Probe', 'seen');
  next();
};

forEachDialect('express middleware', (dialect) => {
  let s: TestServer;
  before(async () => { s = await startServer({ dialect, middleware: [probe] }); });
  after(async () => s?.close());

  it('adds its header to the answer of every operation, whatever the answer', async () => {
    const contract = await loadContract();
    const token = await s.tokenFor(['Admin', 'ApiUser']);
    const answered = new Set<string>();
    for (const op of contract.operations.values()) {
      const path = op.path.replace(/\{[^}]+\}/g, '1');
      const r = await s.request(op.method.toUpperCase(), path, { token, ...(op.acceptsBody && op.method !== 'get' ? { json: {} } : {}) });
      expect(r.headers.get('x-probe'), `${op.method} ${op.path} answered ${r.status}`).to.equal('seen');
      answered.add(op.canonicalId);
    }
    expect([...answered].sort()).to.deep.equal([...contract.canonicalIds].sort());
  });

  it('sees a query answered 200 with its rows, and the edge routes and a 404', async () => {
    const token = await s.tokenFor(['Admin']);
    const query = await s.request('GET', '/json/reply/SoggettoRecapitoQuery?take=1', { token });
    expect([query.status, query.headers.get('x-probe')]).to.deep.equal([200, 'seen']);
    for (const path of ['/openapi.json', '/metrics', '/nope']) {
      expect((await s.request('GET', path)).headers.get('x-probe'), path).to.equal('seen');
    }
  });
});
