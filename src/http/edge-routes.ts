// Routes outside the operation contract: the served contract itself and its interactive
// documentation (design.md §9).
import fs from 'node:fs';
import express, { type Router } from 'express';
import type { Deps } from '../deps.js';
import type { Contract } from './contract.js';
import { docsRoutes } from './docs-routes.js';

export function edgeRoutes(deps: Deps, contract: Contract): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const withServer = (host: string | undefined, proto: string) => ({ ...contract.document, servers: [{ url: `${proto}://${host ?? 'localhost'}` }] });
  router.get('/openapi.json', (req, res) => {
    res.type('application/json; charset=utf-8').send(JSON.stringify(withServer(req.get('host'), req.protocol), null, 2));
  });
  // The YAML writer is loaded on the first request for it, not at start: loading it takes
  // about 50 ms of the service's start-up.
  router.get('/openapi.yaml', async (req, res) => {
    const { stringify } = await import('yaml');
    res.type('application/yaml; charset=utf-8').send(stringify(withServer(req.get('host'), req.protocol)));
  });
  // "Add ServiceStack Reference" (design.md §11): the DTOs the generator wrote from this contract.
  const dtos = fs.readFileSync(new URL('../../../generated/servicestack-dtos.ts', import.meta.url), 'utf8');
  router.get('/types/typescript', (_req, res) => {
    res.type('text/plain; charset=utf-8').send(dtos);
  });
  router.use(docsRoutes());
  return router;
}

