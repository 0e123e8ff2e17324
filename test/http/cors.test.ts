// CORS (design.md §9): listed origins only; preflight answered with the path's methods.
import { expect } from 'chai';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

const allowedOrigin = 'https://app.example.it';

forEachDialect('CORS', (dialect) => {
  describe('with CORS_ORIGINS set', () => {
    let s: TestServer;
    before(async () => { s = await startServer({ dialect, env: { CORS_ORIGINS: `${allowedOrigin}, https://other.example.it` } }); });
    after(() => s.close());

    it('answers a preflight from a listed origin with the methods of the path', async () => {
      const r = await s.request('OPTIONS', '/register', { headers: { origin: allowedOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
      expect(r.status).to.equal(204);
      expect(r.headers.get('access-control-allow-origin')).to.equal(allowedOrigin);
      expect(r.headers.get('access-control-allow-methods')).to.equal('POST, PUT');
      expect(r.headers.get('access-control-allow-headers')).to.include('Authorization').and.include('Content-Type').and.include('If-None-Match');
      expect(r.headers.get('vary')).to.include('Origin');
      expect(r.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
      expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
    });

    it('resolves query operations case-insensitively and with the .json suffix', async () => {
      const r = await s.request('OPTIONS', '/json/reply/soggettorecapitoquery.json', { headers: { origin: allowedOrigin, 'access-control-request-method': 'GET' } });
      expect(r.status).to.equal(204);
      expect(r.headers.get('access-control-allow-methods')).to.equal('GET, POST, HEAD');
    });

    it('adds the allow-origin header to actual answers, errors included', async () => {
      const r = await s.request('GET', '/impianti/1/files', { headers: { origin: allowedOrigin } });
      expect(r.status).to.equal(401);
      expect(r.headers.get('access-control-allow-origin')).to.equal(allowedOrigin);
      expect(r.headers.get('access-control-expose-headers')).to.include('WWW-Authenticate').and.include('ETag');
    });

    it('gives an unlisted origin no CORS headers', async () => {
      const pre = await s.request('OPTIONS', '/register', { headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' } });
      expect(pre.headers.get('access-control-allow-origin')).to.equal(null);
      expect(pre.status).to.equal(405);
      const r = await s.request('GET', '/health', { headers: { origin: 'https://evil.example.com' } });
      expect(r.status).to.equal(200);
      expect(r.headers.get('access-control-allow-origin')).to.equal(null);
    });
  });

  describe('with CORS_ORIGINS empty (the default)', () => {
    let s: TestServer;
    before(async () => { s = await startServer({ dialect }); });
    after(() => s.close());

    it('sends no CORS headers and treats a preflight as any OPTIONS request', async () => {
      const r = await s.request('OPTIONS', '/register', { headers: { origin: allowedOrigin, 'access-control-request-method': 'POST' } });
      expect(r.status).to.equal(405);
      expect(r.headers.get('access-control-allow-origin')).to.equal(null);
    });
  });

  describe('with CORS_ORIGINS=*', () => {
    let s: TestServer;
    before(async () => { s = await startServer({ dialect, env: { CORS_ORIGINS: '*' } }); });
    after(() => s.close());

    it('allows any origin without echoing it', async () => {
      const r = await s.request('GET', '/health', { headers: { origin: 'https://anyone.example.org' } });
      expect(r.headers.get('access-control-allow-origin')).to.equal('*');
    });
  });
});
