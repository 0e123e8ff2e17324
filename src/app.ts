// Builds the Express app from its dependencies: the generated contract, the handlers
// (by operationId; openapi-backend's router picks the operation) and the authenticator. Nothing
// here listens; main.ts does. Start-up fails closed: an operation without a handler
// or an access policy, or a handler without an operation, refuses to build.
import express, { type NextFunction, type Request, type Response } from 'express';
import { OpenAPIBackend } from 'openapi-backend';
import type { Deps } from './deps.js';
import { ApiError } from './errors/api-error.js';
import { authorize, type Authenticator } from './http/access.js';
import type { Contract, OperationContract } from './http/contract.js';
import { negotiate, splitSuffix, validateCallback, type Negotiated } from './http/negotiate.js';
import type { OperationHandler } from './http/operation.js';
import { parseBody } from './http/parse-body.js';
import { readBody } from './http/read-body.js';
import { requestLog } from './http/request-log.js';
import { buildDto, type Body } from './http/request-dto.js';
import { asApiError, sendError, sendResult } from './http/respond.js';
import { compileValidator } from './http/validate-dto.js';
import { edgeRoutes } from './http/edge-routes.js';
import { cors } from './http/cors.js';
import { createMetrics } from './http/metrics.js';
import { operationRoutes } from './http/operation-routes.js';

export interface AppModules {
  readonly handlers: Readonly<Record<string, OperationHandler>>;
  readonly authenticator: Authenticator;
}

const bodyLimit = 1024 * 1024;

export async function createApp(deps: Deps, contract: Contract, modules: AppModules): Promise<express.Express> {
  checkWiring(contract, modules.handlers);
  const { config, logger } = deps;
  const validators = new Map([...contract.operations].map(([id, op]) => [id, compileValidator(op)]));
  const queryOperations = new Map(
    [...contract.operations.values()].filter((op) => op.path.startsWith('/json/reply/')).map((op) => [op.path.toLowerCase(), op.path]),
  );

  const api = new OpenAPIBackend({ definition: contract.document as never, quick: true, validate: false, strict: true });
  await api.init();
  // openapi-backend rebuilds its flat list of operations (lodash, a copy of every
  // operation) on every request it routes: router.matchOperation calls getOperations()
  // each time. That was a fifth of the CPU per request (scripts/bench); the definition
  // never changes after init, so the list is built once.
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  const routes = operationRoutes(api, contract);

  const runOperation = async (op: OperationContract, params: Readonly<Record<string, string>>, req: Request, res: Response): Promise<void> => {
    const negotiated = negotiateFor(op, req);
    res.locals['callback'] = negotiated.callback;
    res.locals['operationId'] = op.operationId;
    const principal = authorize(op.access, req.get('authorization'), modules.authenticator);
    let body: Body = { kind: 'none' };
    if (op.acceptsBody && req.method !== 'GET' && req.method !== 'HEAD') {
      const raw = await readBody(req, bodyLimit);
      if (!raw.ok) throw raw.error;
      body = parseBody(req.get('content-type'), raw.value);
    }
    const built = buildDto(op, params, queryPairs(req), body);
    if (!built.ok) throw built.error;
    if (!op.validatedByHandler) {
      const checked = validators.get(op.operationId)!(built.value);
      if (!checked.ok) throw checked.error;
    }
    const result = await modules.handlers[op.operationId]!({
      operationId: op.operationId,
      dto: built.value,
      principal,
      // A getter: req.ip walks the proxy chain (proxy-addr) on each read, and only the
      // account operations, for their rate limits, ever read it.
      get clientIp() { return req.ip ?? ''; },
      format: negotiated.format,
    });
    sendResult(res, op.operationId, negotiated, result);
  };

  const routePath = (path: string): string => {
    const bare = splitSuffix(path).path;
    return queryOperations.get(bare.toLowerCase()) ?? bare;
  };
  const metrics = createMetrics(deps.db);

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  if (config.trustProxy !== undefined) app.set('trust proxy', trustProxyValue(config.trustProxy));
  app.use(requestLog(logger));
  app.use(metrics.middleware);
  app.use((_req, res, next) => { res.setHeader('X-Content-Type-Options', 'nosniff'); next(); });
  app.use(cors(config.corsOrigins, (path) => routes.allowedMethods(routePath(path))));
  // Operations first: express's routers allocate on every layer they walk (a fifth of
  // what a request allocated, scripts/bench), so requests for operations, nearly all of
  // them, skip the routers of /metrics, the contract and the docs entirely.
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      res.locals['suffix'] = splitSuffix(req.path).format;
      const route = routes.match(req.method === 'HEAD' ? 'GET' : req.method, routePath(req.path));
      if (!route.ok) throw route.error;
      const found = route.value;
      if (found.kind === 'notFound') return next();
      if (found.kind === 'methodNotAllowed') {
        const allow = found.allow.join(', ');
        throw new ApiError('MethodNotAllowed', `${req.method} is not allowed here; use ${allow}`, [], { Allow: allow });
      }
      await runOperation(found.operation, found.params, req, res);
    } catch (err) {
      next(err);
    }
  });
  app.use(metrics.routes());
  app.use(edgeRoutes(deps, contract));
  app.use((_req: Request, _res: Response, next: NextFunction) => next(ApiError.of('NotFound', 'No such route or operation')));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const error = asApiError(err);
    const log = (req as Request & { log?: typeof logger }).log;
    // A 503 is an expected operational state (the database is down or slow): one short
    // warning per request. A 500 is a bug and gets the cause, without the SQL text, whose
    // bound values may be personal data.
    if (error.status === 503) log?.warn({ errorCode: error.code, driverCode: driverCode(error.cause ?? err) }, 'request failed');
    else if (error.status >= 500) log?.error({ err: withoutSql(error.cause ?? err) }, 'request failed');
    let callback: string | undefined = res.locals['callback'];
    if (callback === undefined) {
      try {
        callback = validateCallback(queryValue(req, 'callback'));
      } catch {
        callback = undefined;
      }
    }
    if (res.headersSent) return void res.end();
    sendError(res, error, { debug: config.debug, callback }, err);
  });
  return app;

  function negotiateFor(op: OperationContract, req: Request): Negotiated {
    return negotiate({
      suffix: res(req).locals['suffix'],
      formatParam: queryValue(req, 'format'),
      accept: req.get('accept'),
      callback: queryValue(req, 'callback'),
      csvAllowed: op.csv,
    });
  }
}

const res = (req: Request): Response => req.res!;


function queryPairs(req: Request): Array<[string, string]> {
  const i = req.originalUrl.indexOf('?');
  return i < 0 ? [] : [...new URLSearchParams(req.originalUrl.slice(i + 1))];
}

/** Edge parameter names are case-insensitive like everything else. */
function queryValue(req: Request, name: string): string | undefined {
  return queryPairs(req).find(([k]) => k.toLowerCase() === name)?.[1];
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

function checkWiring(contract: Contract, handlers: Readonly<Record<string, OperationHandler>>): void {
  const missing = [...contract.operations.keys()].filter((id) => typeof handlers[id] !== 'function');
  const extra = Object.keys(handlers).filter((id) => !contract.operations.has(id));
  if (missing.length > 0) throw new Error(`No handler for operation(s): ${missing.join(', ')}`);
  if (extra.length > 0) throw new Error(`Handler(s) for unknown operation(s): ${extra.join(', ')}`);
}

function trustProxyValue(v: string): boolean | number | string {
  if (/^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}

