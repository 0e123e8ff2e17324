// Routes outside the operation contract: the served contract itself and its interactive
// documentation (design.md §9).
import fs from 'node:fs';
import express, { type Router } from 'express';
import type { Deps } from '../deps.js';
import type { Contract } from './contract.js';
import { docsRoutes } from './docs-routes.js';

/** The consumers' contract (design.md §2), as the generator wrote it. */
const consumersDocument = JSON.parse(fs.readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8')) as Record<string, unknown>;

/**
 * `/openapi.json` (and `.yaml`) serves the consumers' contract, each operation once;
 * `/openapi-routes.json` the routes document the server validates against (the contract's
 * `document`, which a test may replace with an edited one).
 */
export function edgeRoutes(deps: Deps, contract: Contract): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  // The servers entry names this deployment's host and its environment, so that a reader of
  // the contract (or a lint of it) can tell production from a developer's machine.
  const environment = deps.config.production ? 'Production' : 'Development (NODE_ENV is not production)';
  const withServer = (document: Readonly<Record<string, unknown>>, host: string | undefined, proto: string) => ({
    ...document,
    servers: [{ url: `${proto}://${host ?? 'localhost'}`, description: `${environment}: the host that served this document.`, 'x-internal': false }],
  });
  for (const [path, document] of [['/openapi.json', consumersDocument], ['/openapi-routes.json', contract.document]] as const) {
    router.get(path, (req, res) => {
      res.type('application/json; charset=utf-8').send(JSON.stringify(withServer(document, req.get('host'), req.protocol), null, 2));
    });
  }
  // The YAML writer is loaded on the first request for it, not at start: loading it takes
  // about 50 ms of the service's start-up.
  router.get('/openapi.yaml', async (req, res) => {
    const { stringify } = await import('yaml');
    res.type('application/yaml; charset=utf-8').send(stringify(withServer(consumersDocument, req.get('host'), req.protocol)));
  });
  // "Add ServiceStack Reference" (design.md §11): the DTOs the generator wrote from this contract.
  const dtos = fs.readFileSync(new URL('../../../generated/servicestack-dtos.ts', import.meta.url), 'utf8');
  router.get('/types/typescript', (_req, res) => {
    res.type('text/plain; charset=utf-8').send(dtos);
  });
  router.use(docsRoutes());
  return router;
}

