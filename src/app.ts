// Builds the service's request listener from its dependencies: the generated contract,
// the handlers (by operationId; openapi-backend picks the operation and validates it) and the
// authenticator. Nothing here listens; main.ts does. Start-up fails closed: an operation
// without a handler or an access policy, or a handler without an operation, refuses to build.
//
// Operations are served on node:http's own request and response: the express app behind
// them gets only what no operation matches (/metrics, the contract, /docs, the 404s).
// Express set the prototype of every request and response to its own and walked a router
// per middleware; for the operations, nearly every request, that costs a tenth of the CPU
// per request and a fifth of what each allocates.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Deps } from './deps.js';
import { ApiError } from './errors/api-error.js';
import { authorize, type Authenticator } from './http/access.js';
import { HandlerRequest } from './http/handler-request.js';
import type { Contract, OperationContract } from './http/contract.js';
import { negotiate, validateCallback } from './http/negotiate.js';
import { callHandler, type HandlerMap } from './http/operation.js';
import type { CanonicalOperationId } from '../generated/operations.js';
import { parseBody } from './http/parse-body.js';
import { readBody } from './http/read-body.js';
import { logAnswered, requestIdOf } from './http/request-log.js';
import { buildDto, type Body } from './http/request-dto.js';
import { asApiError, sendError, sendLastResort, sendResult } from './http/respond.js';
import { requestValidators } from './http/validate-request.js';
import { contractBackend } from './http/contract-backend.js';
import { edgeRoutes } from './http/edge-routes.js';
import { cors } from './http/cors.js';
import { createMetrics, type MetricsSources } from './http/metrics.js';
import { operationRoutes } from './http/operation-routes.js';
import { Exchange } from './http/exchange.js';

export interface AppModules {
  readonly handlers: HandlerMap;
  readonly authenticator: Authenticator;
  /** Read routing and housekeeping figures for /metrics. */
  readonly metrics?: MetricsSources;
}

/** What http.createServer takes. */
export type App = (req: IncomingMessage, res: ServerResponse) => void;

const bodyLimit = 1024 * 1024;
/** ServiceStack's predefined routes, where request DTO names match in any letter case (design.md §11). */
const predefinedPrefix = /^\/(json\/reply|api)\//i;

export async function createApp(deps: Deps, contract: Contract, modules: AppModules): Promise<App> {
  checkWiring(contract, modules.handlers);
  const { config, logger } = deps;
  // ServiceStack matches request DTO names in any letter case: the paths under its
  // predefined prefixes, as the contract spells them (suffix routes included).
  const byDtoName = new Map(
    Object.keys(contract.document['paths'] as object)
      .filter((path) => predefinedPrefix.test(path))
      .map((path) => [path.toLowerCase(), path]),
  );

  const api = await contractBackend(contract);
  const validators = requestValidators(api, contract);
  const routes = operationRoutes(api, contract);
  const canonical = (path: string): string => (predefinedPrefix.test(path) ? byDtoName.get(path.toLowerCase()) ?? path : path);

  const metrics = createMetrics(deps.db, modules.metrics);
  const trust = config.trustProxy;
  const allowCors = cors(config.corsOrigins, (path) => routes.allowedMethods(canonical(path)));

  const runOperation = async (op: OperationContract, params: Readonly<Record<string, string>>, ex: Exchange): Promise<void> => {
    ex.operationId = op.canonicalId;
    const negotiated = negotiate({
      suffix: op.suffix,
      formatParam: ex.queryValue('format'),
      accept: ex.header('accept'),
      callback: ex.queryValue('callback'),
      csvAllowed: op.csv,
      cacheBuster: ex.queryValue('_'),
    });
    ex.callback = negotiated.callback;
    const principal = authorize(op.access, ex.header('authorization'), modules.authenticator);
    let body: Body = { kind: 'none' };
    if (op.acceptsBody && ex.req.method !== 'GET' && ex.req.method !== 'HEAD') {
      const raw = await readBody(ex.req, bodyLimit);
      if (!raw.ok) throw raw.error;
      body = parseBody(ex.header('content-type'), raw.value);
    }
    const built = buildDto(op, params, ex.query, body);
    if (!built.ok) throw built.error;
    const fieldErrors = validators.get(op.operationId)!(built.value);
    // checkWiring has matched every canonical id of the contract to a handler of the map.
    const result = await callHandler(modules.handlers, op.canonicalId as CanonicalOperationId, new HandlerRequest(op.canonicalId, built.value, fieldErrors, principal, negotiated.format, ex, modules.authenticator));
    sendResult(ex.res, op.dtoName, negotiated, result, ex.baseHeaders);
  };

  const answerError = (ex: Exchange, err: unknown): void => {
    const error = asApiError(err);
    // A 503 is an expected operational state (the database is down or slow): one short
    // warning per request. A 500 is a bug and gets the cause, without the SQL text, whose
    // bound values may be personal data.
    if (error.status === 503) ex.log.warn({ errorCode: error.code, driverCode: driverCode(error.cause ?? err) }, 'request failed');
    else if (error.status >= 500) ex.log.error({ err: withoutSql(error.cause ?? err) }, 'request failed');
    let callback = ex.callback;
    if (callback === undefined) {
      try {
        callback = validateCallback(ex.queryValue('callback'));
      } catch {
        callback = undefined;
      }
    }
    if (ex.res.headersSent) return void ex.res.end();
    sendError(ex.res, error, { debug: config.debug, callback }, ex.baseHeaders, err);
  };

  // The rest of the service, in express: whatever no operation matched.
  const exchanges = new WeakMap<IncomingMessage, Exchange>();
  const edge = express();
  edge.disable('x-powered-by');
  edge.disable('etag');
  // Express reads it for req.protocol (the contract's server URL); the same rule as clientIp.
  edge.set('trust proxy', trust);
  edge.use(metrics.routes());
  edge.use(edgeRoutes(deps, contract));
  edge.use((_req: Request, _res: Response, next: NextFunction) => next(ApiError.of('NotFound', 'No such route or operation')));
  edge.use((err: unknown, req: Request, _res: Response, _next: NextFunction) => answerError(exchanges.get(req)!, err));

  const serve = async (ex: Exchange): Promise<void> => {
    try {
      // HEAD is declared wherever GET is, and answered by the GET's route without a body.
      const method = ex.req.method === 'HEAD' ? 'GET' : ex.req.method ?? 'GET';
      const route = routes.match(method, canonical(ex.path));
      if (!route.ok) throw route.error;
      const found = route.value;
      if (found.kind === 'notFound') {
        exchanges.set(ex.req, ex);
        ex.setBaseHeaders();
        edge(ex.req, ex.res);
        return;
      }
      if (found.kind === 'methodNotAllowed') {
        const allow = found.allow.join(', ');
        throw new ApiError('MethodNotAllowed', `${ex.req.method} is not allowed here; use ${allow}`, [], { Allow: allow });
      }
      await runOperation(found.operation, found.params, ex);
    } catch (err) {
      answerError(ex, err);
    }
  };

  return (req, res) => {
    const supplied = req.headers['x-request-id'];
    const ex = new Exchange(req, res, requestIdOf(typeof supplied === 'string' ? supplied : undefined), logger, trust);
    // `on`, not `once`: 'finish' comes once anyway, and once() wraps the listener per request.
    res.on('finish', () => {
      const seconds = (performance.now() - ex.started) / 1000;
      metrics.record(ex.operationId ?? 'none', req.method ?? '', res.statusCode, seconds);
      logAnswered(logger, ex, seconds);
    });
    if (allowCors(ex)) return;
    serve(ex).catch(() => {
      // answerError itself failed (its logger threw): still answer with the envelope, and
      // leave no rejection unhandled, which would end the process.
      if (res.headersSent) return void res.destroy();
      sendLastResort(res, ex.baseHeaders);
    });
  };
}

function driverCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return code === undefined ? undefined : String(code);
}

function withoutSql(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const { name, message, stack } = err;
  const { code, errno } = err as Error & { code?: unknown; errno?: unknown };
  return { type: name, message, stack, code, errno };
}

function checkWiring(contract: Contract, handlers: Readonly<Record<string, unknown>>): void {
  const missing = [...contract.canonicalIds].filter((id) => typeof handlers[id] !== 'function');
  const extra = Object.keys(handlers).filter((id) => !contract.canonicalIds.has(id));
  if (missing.length > 0) throw new Error(`No handler for operation(s): ${missing.join(', ')}`);
  if (extra.length > 0) throw new Error(`Handler(s) for unknown operation(s): ${extra.join(', ')}`);
}
