// The contract's paths on express's router (operation-routes.ts): each request reaches the
// operation openapi-backend lists for its method and path, with its path parameters
// decoded; other methods reach the 405 answer with the methods the path declares.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express, { type NextFunction, type Request, type Response } from 'express';
import { contractOf, loadContract, type Contract } from '../../src/http/contract.js';
import { operationRouter, pathError } from '../../src/http/operation-routes.js';

interface Answer {
  readonly status: number;
  readonly body: { operationId?: string; params?: Record<string, string>; allow?: string; error?: string };
}

/** Serves `contract` with handlers that echo what they matched. */
async function serveRoutes(contract: Contract): Promise<{ get(method: string, path: string): Promise<Answer>; close(): void }> {
  const app = express();
  app.use(operationRouter(contract, {
    operation: (op) => (req, res) => void res.json({ operationId: op.operationId, params: { ...req.params } }),
    otherMethod: (allow) => (_req, res) => void res.status(405).json({ allow: allow.join(', ') }),
  }));
  app.use((_req: Request, res: Response) => void res.status(404).json({}));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => void res.status(pathError(err)?.status ?? 500).json({ error: pathError(err)?.code }));
  const server: Server = await new Promise((resolve) => { const s = createServer(app).listen(0, '127.0.0.1', () => resolve(s)); });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    async get(method, path) {
      const res = await fetch(base + path, { method });
      const text = await res.text();
      return { status: res.status, body: text === '' ? {} : JSON.parse(text) };
    },
    close: () => server.close(),
  };
}

describe('operation routes', () => {
  describe('on the service contract', () => {
    let routes: Awaited<ReturnType<typeof serveRoutes>>;
    before(async () => { routes = await serveRoutes(await loadContract()); });
    after(() => routes.close());

    it('finds a query operation by its exact path; a trailing slash is no declared path', async () => {
      expect((await routes.get('POST', '/json/reply/SoggettoRecapitoQuery')).body.operationId).to.equal('SoggettoRecapitoQuery');
      expect((await routes.get('POST', '/json/reply/SoggettoRecapitoQuery/')).status).to.equal(404);
    });

    it('finds the variant routes of an operation, the predefined ones in any letter case', async () => {
      for (const [method, path, id] of [
        ['POST', '/api/SoggettoRecapitoQuery.csv', 'SoggettoRecapitoQueryApiCsv'],
        ['POST', '/API/soggettorecapitoquery.CSV', 'SoggettoRecapitoQueryApiCsv'],
        ['GET', '/json/reply/GetImpiantoFilesRequest', 'GetImpiantoFilesRequestReply'],
        ['GET', '/impianti/3/files.json', 'GetImpiantoFilesRequestJson'],
      ] as const) {
        expect((await routes.get(method, path)).body.operationId, path).to.equal(id);
      }
    });

    it('matches the other paths in their own letter case only', async () => {
      expect((await routes.get('POST', '/register')).body.operationId).to.equal('Register');
      expect((await routes.get('POST', '/Register')).status).to.equal(404);
      expect((await routes.get('GET', '/Impianti/3/files')).status).to.equal(404);
    });

    it('reads and percent-decodes path parameters', async () => {
      expect((await routes.get('GET', '/impianti/4%32/files')).body).to.deep.equal({ operationId: 'GetImpiantoFilesRequest', params: { ImpiantoId: '42' } });
    });

    it('answers HEAD where GET is declared', async () => {
      expect((await routes.get('HEAD', '/impianti/7/files')).status).to.equal(200);
    });

    it('answers a known path with the wrong method with the methods it allows, HEAD with GET', async () => {
      expect(await routes.get('DELETE', '/impianti/1/files')).to.deep.equal({ status: 405, body: { allow: 'GET, HEAD' } });
      expect(await routes.get('PATCH', '/json/reply/CaratteristicaGruppoQuery')).to.deep.equal({ status: 405, body: { allow: 'GET, POST, HEAD' } });
      expect(await routes.get('GET', '/register')).to.deep.equal({ status: 405, body: { allow: 'POST, PUT' } });
    });

    it('does not know other paths, nor templated paths with extra segments', async () => {
      for (const path of ['/nope', '/impianti/1', '/impianti/1/files/2', '/json/reply/Nope']) {
        expect((await routes.get('GET', path)).status, path).to.equal(404);
      }
    });

    it('refuses a path parameter that is not percent-encoded UTF-8 as the client\'s error', async () => {
      expect(await routes.get('GET', '/impianti/%FF/files')).to.deep.equal({ status: 400, body: { error: 'SerializationException' } });
    });
  });

  it('prefers an exact path over a template, and reads several parameters', async () => {
    const op = (operationId: string, parameters: string[] = []) => ({
      get: { operationId, 'x-public': true, parameters: parameters.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })), responses: { 200: { description: 'ok' } } },
    });
    const routes = await serveRoutes(await contractOf({
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: { '/a/{x}': op('One', ['x']), '/a/{x}/b/{y}': op('Two', ['x', 'y']), '/a/special': op('Special') },
    }));
    try {
      expect((await routes.get('GET', '/a/special')).body.operationId).to.equal('Special');
      expect((await routes.get('GET', '/a/other')).body).to.deep.equal({ operationId: 'One', params: { x: 'other' } });
      expect((await routes.get('GET', '/a/x%2Fy/b/z.json')).body).to.deep.equal({ operationId: 'Two', params: { x: 'x/y', y: 'z.json' } });
    } finally {
      routes.close();
    }
  });

  it('refuses at start-up a contract path that opens with a parameter, which would belong to every first segment', async () => {
    const contract = await contractOf({
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: { '/{x}/files': { get: { operationId: 'Files', 'x-public': true, parameters: [{ name: 'x', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } } } },
    });
    expect(() => operationRouter(contract, { operation: () => () => undefined, otherMethod: () => () => undefined })).to.throw(/\/\{x\}\/files opens with a parameter/);
  });
});
