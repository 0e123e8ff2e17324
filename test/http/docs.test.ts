// /docs and its assets over HTTP: what a browser needs to load the page, served by the
// service itself under a policy that forbids inline scripts.
import { expect } from 'chai';
import { startServer, type TestServer } from '../support/server.js';

describe('interactive documentation at /docs', () => {
  let s: TestServer;
  before(async () => { s = await startServer({ dialect: 'sqlite' }); });
  after(() => s.close());

  it('serves the page as HTML that loads only local scripts', async () => {
    const r = await s.request('GET', '/docs');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const scripts = [...r.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => /src="([^"]+)"/.exec(m[1]!)?.[1])).to.deep.equal(['docs/swagger-ui-bundle.js', 'docs/init.js']);
    expect(scripts.map((m) => m[2]!.trim()), 'no inline script').to.deep.equal(['', '']);
    expect(r.text).not.to.match(/https?:\/\//);
  });

  it('sends a Content-Security-Policy without inline scripts or foreign origins', async () => {
    const csp = (await s.request('GET', '/docs')).headers.get('content-security-policy') ?? '';
    const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
    expect(directives.get('script-src')).to.deep.equal(["'self'"]);
    expect(directives.get('default-src')).to.deep.equal(["'none'"]);
    expect(directives.get('connect-src')).to.deep.equal(["'self'"]);
    expect(directives.get('frame-ancestors')).to.deep.equal(["'none'"]);
  });

  const assets: Array<[string, RegExp]> = [
    ['/docs/init.js', /^(text|application)\/javascript; charset=utf-8$/i],
    ['/docs/swagger-ui-bundle.js', /^(text|application)\/javascript; charset=utf-8$/i],
    ['/docs/swagger-ui.css', /^text\/css; charset=utf-8$/i],
    ['/docs/favicon-32x32.png', /^image\/png$/],
  ];
  for (const [path, type] of assets) {
    it(`serves ${path} with its content type`, async () => {
      const r = await s.request('GET', path);
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.match(type);
      expect(r.text.length).to.be.greaterThan(0);
    });
  }

  it('points the initializer at the served contract and wires no inline configuration', async () => {
    const r = await s.request('GET', '/docs/init.js');
    expect(r.text).to.include("url: 'openapi.json'");
    expect(r.text).to.include('SwaggerUIBundle(');
  });

  it('answers only the routes the contract declares: /docs/ is no route of it', async () => {
    expect((await fetch(`${s.baseUrl}/docs/`, { redirect: 'manual' })).status).to.equal(404);
  });

  it('serves no other file of the package', async () => {
    for (const path of ['/docs/index.html', '/docs/swagger-initializer.js', '/docs/package.json']) {
      expect((await s.request('GET', path)).status, path).to.equal(404);
    }
  });
});
