// The typed-client path a consumer of the contract takes: openapi-fetch with the types of
// generated/api.d.ts, driving the whole story (register, role, refresh, files, queries).
// It is type-checked by tsc, so a contract change that breaks such a client breaks the
// build; each answer is also checked against the spec by a middleware.
import { expect } from 'chai';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../../generated/api.js';
import { createResponseValidator } from '../../src/contract-check/response-validator.js';
import { seedDemo } from '../../src/cli/demo-data.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

const admin = { userName: 'typed.admin', password: 'typed-admin-password' };
const bearer = (token: string | undefined) => ({ Authorization: `Bearer ${token ?? ''}` });

/** Every answer the client receives must conform to the contract, as in test/support/server.ts. */
function contractMiddleware(): Middleware {
  const validate = createResponseValidator();
  return {
    async onResponse({ request, response }) {
      const url = new URL(request.url);
      const verdict = validate({ method: request.method, path: url.pathname + url.search, status: response.status, headers: response.headers, text: await response.clone().text() });
      if (verdict.violations.length > 0) throw new Error(`${request.method} ${url.pathname} broke the contract: ${verdict.violations.join('; ')}`);
    },
  };
}

forEachDialect('typed client (openapi-fetch + generated/api.d.ts)', (dialect) => {
  let s: TestServer;
  let api: Client<paths, 'application/json'>;
  const urls: string[] = [];
  const user = { userName: 'client.user', password: 'client-password', accessToken: '', refreshToken: '' };
  let adminToken = '';

  before(async () => {
    s = await startServer({ dialect, env: { ADMIN_USERNAME: admin.userName, ADMIN_PASSWORD: admin.password } });
    await seedDemo(s.db);
    // Arrays as comma-separated values (`idIn=1,2,3`), one of the forms the contract takes
    // (design.md §1) and the one its query parameters declare (style: form, explode: false).
    // 'application/json': of the media types an answer may have (JSON, JSONP, CSV), the one this client reads.
    api = createClient<paths, 'application/json'>({ baseUrl: s.baseUrl, querySerializer: { array: { style: 'form', explode: false } } });
    api.use(contractMiddleware(), { onRequest: ({ request }) => void urls.push(request.url) });
  });
  after(() => s.close());

  it('registers with autoLogin and gets a session', async () => {
    const { data, error } = await api.POST('/register', { body: { userName: user.userName, password: user.password, autoLogin: true } });
    expect(error).to.equal(undefined);
    expect(data?.userName).to.equal(user.userName);
    user.refreshToken = data?.refreshToken ?? '';
    user.accessToken = data?.bearerToken ?? '';
    expect(user.refreshToken).not.to.equal('');
  });

  it('is refused the files with a typed 403 while it has no role', async () => {
    const { data, error, response } = await api.GET('/impianti/{ImpiantoId}/files', { params: { path: { ImpiantoId: 1 } }, headers: bearer(user.accessToken) });
    expect([response.status, data, error?.responseStatus.errorCode]).to.deep.equal([403, undefined, 'Forbidden']);
  });

  it('lets the bootstrap admin sign in and assign ApiUser', async () => {
    const signIn = await api.POST('/auth/credentials', { body: admin });
    expect(signIn.data?.roles).to.deep.equal(['Admin']);
    adminToken = signIn.data?.bearerToken ?? '';
    const { data } = await api.POST('/assignroles', { body: { userName: user.userName, roles: ['ApiUser'] }, headers: bearer(adminToken) });
    expect(data?.allRoles).to.deep.equal(['ApiUser']);
  });

  it('brings the role into the token at the next refresh, and then lists the files', async () => {
    const refreshed = await api.POST('/access-token', { body: { refreshToken: user.refreshToken } });
    user.accessToken = refreshed.data?.accessToken ?? '';
    const { data } = await api.GET('/impianti/{ImpiantoId}/files', { params: { path: { ImpiantoId: 1 } }, headers: bearer(user.accessToken) });
    expect(data?.rootFile).to.include({ nome: 'Documentazione', isFolder: true });
    const names: string[] = (data?.contents ?? []).map((f) => f.nome);
    expect(names).to.deep.equal(['Certificazioni', 'Manutenzione', 'Progetto', 'Analisi combustione.pdf', 'Élenco componenti.xlsx', 'foto caldaia.jpg', "Libretto d'impianto.pdf"]);
  });

  it('queries with comma-separated arrays, ordering, paging and aggregates (GET)', async () => {
    const { data } = await api.GET('/json/reply/CaratteristicaGruppoQuery', {
      params: { query: { idIn: [1, 2, 3, 4, 5], orderByDesc: 'Id', skip: 1, take: 2, include: 'Total, MAX(OrdineVista) MaxOrdine' } },
      headers: bearer(adminToken),
    });
    expect(urls.at(-1)).to.include('idIn=1,2,3,4,5');
    expect(data?.results.map((r) => r.id)).to.deep.equal([4, 3]);
    expect([data?.offset, data?.total, data?.meta?.['MaxOrdine']]).to.deep.equal([1, 5, '50']);
  });

  it('queries with string filters, field selection and a distinct count (POST body)', async () => {
    const { data } = await api.POST('/json/reply/SoggettoRecapitoQuery', {
      body: { recapitoContains: 'PEC', soggettoIdIn: [1001, 1002], fields: 'Id,Recapito', include: 'COUNT(DISTINCT SoggettoId) Soggetti' },
      headers: bearer(adminToken),
    });
    expect(data?.results.map((r) => r.recapito)).to.deep.equal(['brambilla@pec.it', 'ferraris@pec.it']);
    expect(data?.results.every((r) => Object.keys(r).join() === 'id,recapito')).to.equal(true);
    expect(data?.meta).to.deep.equal({ Soggetti: '2' });
  });

  it('reports a misspelt filter as a typed field error', async () => {
    const { error, response } = await api.POST('/json/reply/SoggettoRecapitoQuery', {
      // The cast is the point: the types reject the typo at compile time; the server does at run time.
      body: { recapitoStartWith: 'info' } as never,
      headers: bearer(adminToken),
    });
    expect(response.status).to.equal(400);
    expect(error?.responseStatus.errors.map((e) => [e.errorCode, e.fieldName])).to.deep.equal([['UnknownField', 'recapitoStartWith']]);
  });
});
