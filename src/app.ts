// Builds the service's express app from its dependencies: the contract (its operations as
// openapi-backend lists them), the handlers by operationId and the authenticator. Nothing
// here listens; main.ts does. Start-up fails closed: an operation without a handler or an
// access policy, or a handler without an operation, refuses to build.
//
// express carries every request: a middleware added to `app` before the routers below
// applies to every operation and every edge route alike.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Deps } from './deps.js';
import { ApiError } from './errors/api-error.js';
import type { Authenticator } from './http/access.js';
import type { Contract } from './http/contract.js';
import { edgeRoutes } from './http/edge-routes.js';
import { cors } from './http/cors.js';
import { createMetrics, type MetricsSources } from './http/metrics.js';
import { operationRouter, pathError } from './http/operation-routes.js';
import type { HandlerMap } from './http/operation.js';
import { exchangeOf, exchanges } from './http/exchange-middleware.js';
import { errorAnswerer } from './http/answer-error.js';
import { operationServer } from './http/serve-operation.js';
import type { LiveModule } from './http/live-stream.js';

export interface AppModules {
  readonly handlers: HandlerMap;
  readonly authenticator: Authenticator;
  /** Read routing and housekeeping figures for /metrics. */
  readonly metrics?: MetricsSources;
  /** The live answers of the tagged GETs (design.md §7); without it, Accept: text/event-stream is 406 as any unserved type. */
  readonly live?: LiveModule;
}

/** What http.createServer takes. */
export type App = express.Express;

export interface AppOptions {
  /** Middleware every request passes before it is routed: operations and edge routes alike. */
  readonly middleware?: readonly RequestHandler[];
}

export async function createApp(deps: Deps, contract: Contract, modules: AppModules, options: AppOptions = {}): Promise<App> {
  checkWiring(contract, modules.handlers);
  const { config } = deps;
  const metrics = createMetrics(deps.db, modules.metrics);
  const allowCors = cors(config.corsOrigins);
  const answerError = errorAnswerer(config.debug);
  const serve = operationServer(contract, modules);

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // Express reads it for req.protocol (the contract's server URL); the same rule as clientIp.
  app.set('trust proxy', config.trustProxy);
  app.use(exchanges(deps.logger, config.trustProxy, (ex, seconds) => metrics.record(ex.operationId ?? 'none', ex.req.method ?? '', ex.res.statusCode, seconds)));
  app.use((req: Request, res: Response, next: NextFunction) => {
    allowCors.headers(exchangeOf(res));
    next();
  });
  // Middleware added here reaches every operation and every edge route.
  for (const middleware of options.middleware ?? []) app.use(middleware);
  app.use(operationRouter(contract, {
    operation: (op) => (req, res, next) => serve(op, req.params as Record<string, string>, exchangeOf(res)).catch(next),
    otherMethod: (allow) => methodNotAllowed(allow, allowCors),
  }));
  app.use(metrics.routes());
  app.use(edgeRoutes(deps, contract));
  app.use((_req: Request, _res: Response, next: NextFunction) => next(ApiError.of('NotFound', 'No such route or operation')));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => answerError(exchangeOf(res), pathError(err) ?? err));
  return app;
}

/** A method the path does not declare: a CORS preflight, or 405 naming the ones it does. */
function methodNotAllowed(allow: readonly string[], allowCors: ReturnType<typeof cors>): RequestHandler {
  const list = allow.join(', ');
  return (req, res, next) => {
    if (allowCors.preflight(exchangeOf(res), allow)) return;
    next(new ApiError('MethodNotAllowed', `${req.method} is not allowed here; use ${list}`, [], { Allow: list }));
  };
}

function checkWiring(contract: Contract, handlers: Readonly<Record<string, unknown>>): void {
  const missing = [...contract.canonicalIds].filter((id) => typeof handlers[id] !== 'function');
  const extra = Object.keys(handlers).filter((id) => !contract.canonicalIds.has(id));
  if (missing.length > 0) throw new Error(`No handler for operation(s): ${missing.join(', ')}`);
  if (extra.length > 0) throw new Error(`Handler(s) for unknown operation(s): ${extra.join(', ')}`);
}
