// Every failure the HTTP edge can produce, and content negotiation, through real HTTP.
import { expect } from 'chai';
import { forEachDialect } from '../support/dialects.js';
import { expectError } from '../support/expect-error.js';
import { send } from '../fuzz/support/raw-http.js';
import { startServer, type TestServer } from '../support/server.js';

forEachDialect('HTTP edge', (dialect) => {
  let s: TestServer;
  let admin: string;
  let apiUser: string;
  before(async () => {
    s = await startServer({ dialect });
    admin = await s.tokenFor(['Admin']);
    apiUser = await s.tokenFor(['ApiUser']);
  });
  after(() => s.close());

  describe('routing', () => {
    it('404 NotFound for an unknown route', async () => expectError(await s.request('GET', '/nope'), 404, 'NotFound'));
    it('404 NotFound for an unknown operation under /json/reply/', async () =>
      expectError(await s.request('POST', '/json/reply/NopeQuery', { token: admin, json: {} }), 404, 'NotFound'));
    it('405 with Allow for a verb not served on /register', async () => {
      const r = await s.request('DELETE', '/register');
      expectError(r, 405, 'MethodNotAllowed');
      expect(r.headers.get('allow')).to.equal('POST, PUT');
    });
    it('405 with Allow (GET, HEAD) on the files route', async () => {
      const r = await s.request('POST', '/impianti/1/files', { token: apiUser, json: {} });
      expectError(r, 405, 'MethodNotAllowed');
      expect(r.headers.get('allow')).to.equal('GET, HEAD');
    });
    it('405 comes before authentication', async () => expectError(await s.request('PATCH', '/json/reply/SoggettoRecapitoQuery'), 405, 'MethodNotAllowed'));
    it('operation names under /json/reply/ are case-insensitive', async () => {
      const r = await s.request('GET', '/json/reply/soggettorecapitoquery', { token: admin });
      expect(r.status).to.equal(200);
      expect(r.body.results).to.be.an('array');
    });
    it('/health answers 200', async () => {
      const r = await s.request('GET', '/health');
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({ status: 'ok' });
      expect(r.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(r.headers.get('content-length')).to.equal(String(Buffer.byteLength(r.text)));
    });
    it('serves an absolute-form request target (RFC 9112 §3.2.2) as its path and query', async () => {
      const port = Number(new URL(s.baseUrl).port);
      const r = await send(port, { method: 'GET', target: `http://127.0.0.1:${port}/json/reply/SoggettoRecapitoQuery?take=1&callback=cb`, headers: [['Authorization', `Bearer ${admin}`]] });
      expect(r.status).to.equal(200);
      expect(r.body.toString()).to.match(/^\/\*\*\/cb\(\{"offset":0,"results":\[/);
    });
    it('/ready answers 200 while the database answers', async () => expect((await s.request('GET', '/ready')).status).to.equal(200));
    it('HEAD answers like GET without a body', async () => {
      const r = await s.request('HEAD', '/health');
      expect(r.status).to.equal(200);
      expect(r.text).to.equal('');
    });
    it('serves the contract at /openapi.json and /openapi.yaml, and every route at /openapi-routes.json', async () => {
      const json = await s.request('GET', '/openapi.json');
      expect(json.status).to.equal(200);
      expect(json.body.paths).to.have.property('/register');
      expect(json.body.paths).not.to.have.property('/register.json');
      expect(json.body.externalDocs.url).to.equal('openapi-routes.json');
      const routes = await s.request('GET', '/openapi-routes.json');
      expect(routes.body.paths['/json/reply/Register.json'].post['x-variant-of']).to.equal('Register');
      expect(routes.body.servers).to.deep.equal(json.body.servers);
      expect(json.body.servers[0]).to.deep.equal({ url: s.baseUrl, description: 'Development (NODE_ENV is not production): the host that served this document.', 'x-internal': false });
      const yaml = await s.request('GET', '/openapi.yaml');
      expect(yaml.headers.get('content-type')).to.match(/^application\/yaml/);
      expect(yaml.text).to.match(/^openapi: 3\./m);
    });
  });

  describe('request bodies', () => {
    it('413 PayloadTooLarge over 1 MiB', async () => {
      const r = await s.request('POST', '/register', { body: JSON.stringify({ userName: 'x'.repeat(1024 * 1024) }), headers: { 'content-type': 'application/json' } });
      expectError(r, 413, 'PayloadTooLarge');
    });
    it('415 UnsupportedMediaType for a text/plain body', async () =>
      expectError(await s.request('POST', '/register', { body: 'userName=x', headers: { 'content-type': 'text/plain' } }), 415, 'UnsupportedMediaType'));
    it('415 for a body without a content type', async () =>
      expectError(await s.request('POST', '/register', { body: Buffer.from('{}') }), 415, 'UnsupportedMediaType'));
    it('400 SerializationException for malformed JSON', async () =>
      expectError(await s.request('POST', '/register', { body: '{"userName": ', headers: { 'content-type': 'application/json' } }), 400, 'SerializationException'));
    it('400 SerializationException for invalid UTF-8', async () =>
      expectError(await s.request('POST', '/register', { body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), headers: { 'content-type': 'application/json' } }), 400, 'SerializationException'));
    it('400 SerializationException for an encoded surrogate or an overlong form, which are not UTF-8 either', async () => {
      for (const bytes of [[0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d], [0x7b, 0xc0, 0x80, 0x7d]]) {
        expectError(await s.request('POST', '/register', { body: Buffer.from(bytes), headers: { 'content-type': 'application/json' } }), 400, 'SerializationException');
      }
    });
    it('a JSON body after a UTF-8 byte order mark is read as if it had none', async () => {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ take: 1, include: 'Total' }))]);
      const r = await s.request('POST', '/json/reply/SoggettoRecapitoQuery', { token: admin, body, headers: { 'content-type': 'application/json' } });
      expect(r.status).to.equal(200);
      // The total comes only when Include was read from the body.
      expect(r.body.total).to.be.a('number');
    });
    it('400 UnknownField naming the property as sent and the request DTO, whichever route', async () => {
      for (const [method, path] of [['POST', '/json/reply/SoggettoRecapitoQuery'], ['GET', '/json/reply/SoggettoRecapitoQuery?recapitoStartWith=a'], ['POST', '/api/SoggettoRecapitoQuery.json']]) {
        const r = await s.request(method!, path!, { token: admin, ...(method === 'POST' ? { json: { recapitoStartWith: 'a' } } : {}) });
        expectError(r, 400, 'UnknownField', 'recapitoStartWith');
        expect(r.body.responseStatus.message, path).to.equal("'recapitoStartWith' is not a property of SoggettoRecapitoQuery");
      }
    });
    it('400 InvalidType naming the field for a wrong JSON type', async () =>
      expectError(await s.request('POST', '/json/reply/SoggettoRecapitoQuery', { token: admin, json: { idIn: 'x' } }), 400, 'InvalidType', 'IdIn'));
    it('an application/*+json body is JSON', async () => {
      const r = await s.request('POST', '/json/reply/SoggettoRecapitoQuery', { token: admin, body: '{"take":1}', headers: { 'content-type': 'application/vnd.api+json' } });
      expect(r.status).to.equal(200);
    });
  });

  describe('authentication and roles', () => {
    it('401 with WWW-Authenticate: Bearer without a token', async () => {
      const r = await s.request('GET', '/impianti/1/files');
      expectError(r, 401, 'Unauthorized');
      expect(r.headers.get('www-authenticate')).to.equal('Bearer');
    });
    it('401 for a malformed token', async () => expectError(await s.request('GET', '/impianti/1/files', { token: 'not.a.jwt' }), 401, 'Unauthorized'));
    it('401 comes before 400 for a bad ImpiantoId', async () => expectError(await s.request('GET', '/impianti/abc/files'), 401, 'Unauthorized'));
    it('403 Invalid Role for a query without Admin', async () => {
      const r = await s.request('POST', '/json/reply/CaratteristicaGruppoQuery', { token: apiUser, json: {} });
      expectError(r, 403, 'Forbidden');
      expect(r.body.responseStatus.message).to.equal('Invalid Role');
    });
    it('403 comes before 400: a non-admin learns nothing about the parameters', async () =>
      expectError(await s.request('POST', '/json/reply/CaratteristicaGruppoQuery', { token: apiUser, json: { bogus: 1 } }), 403, 'Forbidden'));
    it('403 for a user with no roles on the files route', async () =>
      expectError(await s.request('GET', '/impianti/1/files', { token: await s.tokenFor([]) }), 403, 'Forbidden'));
  });

  describe('content negotiation', () => {
    it('406 NotAcceptable for format=xml, with a JSON body', async () => expectError(await s.request('GET', '/health?format=xml'), 406, 'NotAcceptable'));
    it('406 for an Accept that lists nothing served', async () =>
      expectError(await s.request('GET', '/health', { headers: { accept: 'application/xml' } }), 406, 'NotAcceptable'));
    it('406 for format=csv on an operation that has no CSV form', async () => expectError(await s.request('GET', '/health?format=csv'), 406, 'NotAcceptable'));
    it('404 for a .csv suffix on an operation that has no CSV form: the contract declares no such route', async () =>
      expectError(await s.request('GET', '/health.csv'), 404, 'NotFound'));
    it('the .json suffix works on any operation route', async () => {
      const r = await s.request('GET', '/health.json');
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({ status: 'ok' });
    });
    it('format=json overrides Accept', async () => expect((await s.request('GET', '/health?format=json', { headers: { accept: 'text/csv' } })).status).to.equal(200));
    it('JSONP wraps the body and sets nosniff', async () => {
      const r = await s.request('GET', '/health?callback=handle.it');
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.equal('application/javascript; charset=utf-8');
      expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(r.text).to.equal('/**/handle.it({"status":"ok"});');
    });
    it('JSONP errors answer 200 so the callback runs, with responseStatus inside', async () => {
      const r = await s.request('GET', '/impianti/1/files?callback=cb');
      expect(r.status).to.equal(200);
      const inner = JSON.parse(/^\/\*\*\/cb\((.*)\);$/s.exec(r.text)![1]!);
      expect(inner.responseStatus.errorCode).to.equal('Unauthorized');
    });
    it('400 naming callback for a hostile callback name', async () =>
      expectError(await s.request('GET', '/health?callback=alert(document.cookie)'), 400, 'InvalidValue', 'callback'));
    it('CSV for a query operation via Accept', async () => {
      const r = await s.request('GET', '/json/reply/SoggettoRecapitoQuery?take=0', { token: admin, headers: { accept: 'text/csv' } });
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
      expect(r.headers.get('content-disposition')).to.equal('attachment; filename="SoggettoRecapitoQuery.csv"');
      expect(r.text).to.equal('Id,SoggettoId,TipoRecapitoId,Recapito,CodiceEsterno\r\n');
    });
  });

  describe('logging', () => {
    it('echoes X-Request-Id and logs one line per request without credentials', async () => {
      const r = await s.request('GET', '/impianti/1/files?callback=cb', { token: admin, headers: { 'x-request-id': 'req-42' } });
      expect(r.headers.get('x-request-id')).to.equal('req-42');
      const line = s.logs().map((l) => JSON.parse(l)).find((l) => l.reqId === 'req-42');
      expect(line).to.include({ method: 'GET', path: '/impianti/1/files', operation: 'GetImpiantoFilesRequest' });
      expect(s.logs().join('\n')).not.to.include(admin);
    });
    it('gives routes outside the operations (the contract, the metrics, a 404) the same request id, nosniff and log line', async () => {
      for (const path of ['/openapi.json', '/metrics', '/nope']) {
        const id = `edge${path.replace(/\W/g, '')}`;
        const r = await s.request('GET', path, { headers: { 'x-request-id': id } });
        expect(r.headers.get('x-request-id'), path).to.equal(id);
        expect(r.headers.get('x-content-type-options'), path).to.equal('nosniff');
        const line = s.logs().map((l) => JSON.parse(l)).find((l) => l.reqId === id && l.msg === 'request');
        expect(line, path).to.include({ method: 'GET', path, status: r.status });
        expect(line, path).not.to.have.property('operation');
      }
    });
    it('gives every kind of operation answer the request id and nosniff beside its own headers', async () => {
      const answers: Array<[string, Promise<Awaited<ReturnType<typeof s.request>>>, string, string | null]> = [
        ['JSON', s.request('POST', '/json/reply/SoggettoRecapitoQuery', { token: admin, json: {}, headers: { 'x-request-id': 'a-json' } }), 'a-json', null],
        ['CSV', s.request('GET', '/json/reply/SoggettoRecapitoQuery.csv', { token: admin, headers: { 'x-request-id': 'a-csv' } }), 'a-csv', null],
        ['JSONP', s.request('GET', '/impianti/1/files?callback=cb', { token: admin, headers: { 'x-request-id': 'a-jsonp' } }), 'a-jsonp', null],
        ['401', s.request('GET', '/impianti/1/files', { headers: { 'x-request-id': 'a-401' } }), 'a-401', 'www-authenticate'],
        ['405', s.request('DELETE', '/register', { headers: { 'x-request-id': 'a-405' } }), 'a-405', 'allow'],
        ['400', s.request('POST', '/json/reply/SoggettoRecapitoQuery', { token: admin, json: { take: -1 }, headers: { 'x-request-id': 'a-400' } }), 'a-400', null],
      ];
      for (const [kind, answer, id, own] of answers) {
        const r = await answer;
        expect(r.headers.get('x-request-id'), kind).to.equal(id);
        expect(r.headers.get('x-content-type-options'), kind).to.equal('nosniff');
        expect(r.headers.get('content-type'), kind).to.match(/^(application\/(json|javascript)|text\/csv); charset=utf-8$/);
        expect(Number(r.headers.get('content-length')), kind).to.equal(Buffer.byteLength(r.text));
        if (own !== null) expect(r.headers.get(own), kind).to.be.a('string').and.not.be.empty;
      }
    });
    it('makes up a request id when the client sends none, a different one for each request', async () => {
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await s.request('GET', '/health')).headers.get('x-request-id'));
      for (const id of ids) expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(new Set(ids).size).to.equal(3);
    });
  });
});

forEachDialect('HTTP edge, debug mode and lost database', (dialect) => {
  it('adds stackTrace only when DEBUG=true', async () => {
    const s = await startServer({ dialect, env: { DEBUG: 'true' } });
    try {
      const r = await s.request('GET', '/impianti/1/files');
      expect(r.status).to.equal(401);
      expect(r.body.responseStatus.stackTrace).to.be.a('string');
    } finally {
      await s.close();
    }
  });
  it('/ready answers 503 ServiceUnavailable when the database is gone', async () => {
    const s = await startServer({ dialect });
    try {
      await s.knex.destroy();
      const r = await s.request('GET', '/ready');
      expectError(r, 503, 'ServiceUnavailable');
      expect(r.headers.get('retry-after')).to.equal('1');
    } finally {
      await s.close().catch(() => undefined);
    }
  });
});
