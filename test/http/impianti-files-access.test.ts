// GET /impianti/{ImpiantoId}/files at the HTTP edge: authentication, roles, verbs, the path
// parameter's validation, and NotFound, in the order design.md §3 fixes.
import { expect } from 'chai';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

forEachDialect('GET /impianti/{ImpiantoId}/files access', (dialect) => {
  let s: TestServer;
  let apiUser: string;
  before(async () => {
    s = await startServer({ dialect });
    await s.knex('impianto').insert({ id: 1, nome: 'Centrale termica' });
    apiUser = await s.tokenFor(['ApiUser']);
  });
  after(() => s.close());

  it('is 401 without a token, with WWW-Authenticate', async () => {
    const res = await s.request('GET', '/impianti/1/files');
    expect(res.status).to.equal(401);
    expect(res.body.responseStatus.errorCode).to.equal('Unauthorized');
    expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
  });

  it('is 403 for a user without ApiUser, before any lookup', async () => {
    const token = await s.tokenFor([]);
    for (const path of ['/impianti/1/files', '/impianti/999/files']) {
      const res = await s.request('GET', path, { token });
      expect(res.status).to.equal(403);
      expect(res.body.responseStatus).to.include({ errorCode: 'Forbidden', message: 'Invalid Role' });
    }
  });

  it('is 200 for ApiUser and for Admin', async () => {
    for (const token of [apiUser, await s.tokenFor(['Admin'])]) {
      const res = await s.request('GET', '/impianti/1/files', { token });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(res.body).to.deep.equal({ contents: [] });
    }
  });

  it('answers HEAD like GET, without a body', async () => {
    const res = await s.request('HEAD', '/impianti/1/files', { token: apiUser });
    expect(res.status).to.equal(200);
    expect(res.text).to.equal('');
  });

  for (const verb of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    it(`is 405 for ${verb}, with Allow`, async () => {
      const res = await s.request(verb, '/impianti/1/files', { token: apiUser });
      expect(res.status).to.equal(405);
      expect(res.body.responseStatus.errorCode).to.equal('MethodNotAllowed');
      expect(res.headers.get('allow')?.split(/,\s*/).sort()).to.deep.equal(['GET', 'HEAD']);
    });
  }

  const badIds: Array<[string, string]> = [
    ['a non-integer', 'abc'], ['a fraction', '1.5'], ['zero', '0'], ['a negative id', '-1'],
    ['an id over int32', '2147483648'], ['a huge id', '99999999999999999999'],
  ];
  for (const [name, id] of badIds) {
    it(`is 400 naming ImpiantoId for ${name} (${id})`, async () => {
      const res = await s.request('GET', `/impianti/${id}/files`, { token: apiUser });
      expect(res.status).to.equal(400);
      expect(res.body.responseStatus.errors.map((e: { fieldName: string }) => e.fieldName)).to.deep.equal(['ImpiantoId']);
    });
  }

  it('accepts the largest int32', async () => {
    const res = await s.request('GET', '/impianti/2147483647/files', { token: apiUser });
    expect(res.status).to.equal(404);
  });

  it('is 404 NotFound for an unknown impianto', async () => {
    const res = await s.request('GET', '/impianti/999/files', { token: apiUser });
    expect(res.status).to.equal(404);
    expect(res.body.responseStatus).to.include({ errorCode: 'NotFound', message: 'Impianto 999 not found' });
    expect(res.body).to.not.have.property('contents');
  });
});
