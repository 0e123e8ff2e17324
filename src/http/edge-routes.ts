// Routes outside the operation contract: the served contract itself and its interactive
// documentation (design.md §9).
import express, { type Router } from 'express';
import { stringify } from 'yaml';
import type { Deps } from '../deps.js';
import type { Contract } from './contract.js';
import { docsRoutes } from './docs-routes.js';

export function edgeRoutes(deps: Deps, contract: Contract): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const withServer = (host: string | undefined, proto: string) => ({ ...contract.document, servers: [{ url: `${proto}://${host ?? 'localhost'}` }] });
  router.get('/openapi.json', (req, res) => {
    res.type('application/json; charset=utf-8').send(JSON.stringify(withServer(req.get('host'), req.protocol), null, 2));
  });
  router.get('/openapi.yaml', (req, res) => {
    res.type('application/yaml; charset=utf-8').send(stringify(withServer(req.get('host'), req.protocol)));
  });
  router.use(docsRoutes());
  return router;
}

