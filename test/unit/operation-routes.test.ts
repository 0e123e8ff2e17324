import { expect } from 'chai';
import { OpenAPIBackend } from 'openapi-backend';
import { fromDocument, loadContract, type Contract } from '../../src/http/contract.js';
import { operationRoutes, recentPaths, type OperationRoutes, type Route } from '../../src/http/operation-routes.js';

async function routesOf(contract: Contract): Promise<OperationRoutes> {
  const api = new OpenAPIBackend({ definition: contract.document as never, quick: true, validate: false, strict: true });
  await api.init();
  return operationRoutes(api, contract);
}

function matched(routes: OperationRoutes, method: string, path: string): Route {
  const r = routes.match(method, path);
  if (!r.ok) throw new Error(`unexpected error ${r.error.code}`);
  return r.value;
}

describe('operation routes', () => {
  describe('on the service contract', () => {
    let routes: OperationRoutes;
    before(async () => { routes = await routesOf(loadContract()); });

    it('finds a query operation by its exact path; a trailing slash is no declared path', () => {
      const r = matched(routes, 'POST', '/json/reply/SoggettoRecapitoQuery');
      expect(r.kind).to.equal('operation');
      if (r.kind === 'operation') expect(r.operation.operationId).to.equal('SoggettoRecapitoQuery');
      expect(matched(routes, 'POST', '/json/reply/SoggettoRecapitoQuery/').kind).to.equal('notFound');
    });

    it('finds the variant routes of an operation, each pointing at its canonical operation', () => {
      for (const [method, path, id] of [['POST', '/api/SoggettoRecapitoQuery.csv', 'SoggettoRecapitoQueryApiCsv'], ['GET', '/json/reply/GetImpiantoFilesRequest', 'GetImpiantoFilesRequestReply'], ['GET', '/impianti/3/files.json', 'GetImpiantoFilesRequestJson']] as const) {
        const r = matched(routes, method, path);
        expect(r.kind, path).to.equal('operation');
        if (r.kind === 'operation') expect([r.operation.operationId, r.operation.canonicalId], path).to.deep.equal([id, id.startsWith('Soggetto') ? 'SoggettoRecapitoQuery' : 'GetImpiantoFilesRequest']);
      }
    });

    it('keeps its answers for templated paths within a bound: the oldest go first, and an answer is the same either way', function () {
      // Fills the whole bound of remembered paths, one match at a time.
      this.timeout(120_000);
      for (let id = 1; id <= recentPaths + 50; id++) matched(routes, 'GET', `/impianti/${id}/files`);
      for (const id of [1, 60, recentPaths + 50]) {
        const r = matched(routes, 'GET', `/impianti/${id}/files`);
        expect(r.kind).to.equal('operation');
        if (r.kind === 'operation') expect([r.operation.operationId, r.params]).to.deep.equal(['GetImpiantoFilesRequest', { ImpiantoId: String(id) }]);
      }
      expect(matched(routes, 'DELETE', '/impianti/7/files')).to.deep.equal({ kind: 'methodNotAllowed', allow: ['GET', 'HEAD'] });
    });

    it('reads and percent-decodes path parameters', () => {
      const r = matched(routes, 'GET', '/impianti/4%32/files');
      expect(r).to.include({ kind: 'operation' });
      if (r.kind === 'operation') {
        expect(r.operation.operationId).to.equal('GetImpiantoFilesRequest');
        expect(r.params).to.deep.equal({ ImpiantoId: '42' });
      }
    });

    it('answers a known path with the wrong method with the methods it allows, HEAD with GET', () => {
      expect(matched(routes, 'DELETE', '/impianti/1/files')).to.deep.equal({ kind: 'methodNotAllowed', allow: ['GET', 'HEAD'] });
      const q = matched(routes, 'PATCH', '/json/reply/CaratteristicaGruppoQuery');
      expect(q.kind).to.equal('methodNotAllowed');
      if (q.kind === 'methodNotAllowed') expect(q.allow).to.include.members(['GET', 'POST']);
    });

    it('does not know other paths, nor templated paths with extra segments', () => {
      for (const path of ['/nope', '/impianti/1', '/impianti/1/files/2', '/json/reply/Nope']) {
        expect(matched(routes, 'GET', path), path).to.deep.equal({ kind: 'notFound' });
      }
    });

    it('refuses a path parameter that is not percent-encoded UTF-8 as the client\'s error', () => {
      const r = routes.match('GET', '/impianti/%FF/files');
      expect(r.ok).to.equal(false);
      if (!r.ok) expect([r.error.status, r.error.code]).to.deep.equal([400, 'SerializationException']);
    });
  });

  it('prefers an exact path over a template, and reads several parameters', async () => {
    const op = (operationId: string, parameters: string[] = []) => ({
      get: { operationId, 'x-public': true, parameters: parameters.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })), responses: { 200: { description: 'ok' } } },
    });
    const routes = await routesOf(fromDocument({
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: { '/a/{x}/b/{y}': op('Two', ['x', 'y']), '/a/{x}': op('One', ['x']), '/a/special': op('Special') },
    }));
    const special = matched(routes, 'GET', '/a/special');
    expect(special.kind === 'operation' && special.operation.operationId).to.equal('Special');
    const two = matched(routes, 'GET', '/a/x%2Fy/b/z.json');
    expect(two.kind === 'operation' && [two.operation.operationId, two.params]).to.deep.equal(['Two', { x: 'x/y', y: 'z.json' }]);
  });
});
