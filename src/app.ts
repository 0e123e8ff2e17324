// Builds the Express app from its dependencies: the generated contract, the handlers
// (registered by operationId through openapi-backend) and the authenticator. Nothing
// here listens; main.ts does. Start-up fails closed: an operation without a handler
// or an access policy, or a handler without an operation, refuses to build.
import express, { type NextFunction, type Request, type Response } from 'express';
import { OpenAPIBackend, type Context } from 'openapi-backend';
import type { Deps } from './deps.js';
import { ApiError } from './errors/api-error.js';
import { authorize, type Authenticator } from './http/access.js';
import type { Contract, OperationContract } from './http/contract.js';
import { negotiate, splitSuffix, validateCallback, type Negotiated } from './http/negotiate.js';
import type { OperationHandler } from './http/operation.js';
import { parseBody } from './http/parse-body.js';
import { requestLog } from './http/request-log.js';
import { buildDto } from './http/request-dto.js';
import { asApiError, sendError, sendResult } from './http/respond.js';
import { compileValidator, type DtoValidator } from './http/validate-dto.js';
import { edgeRoutes } from './http/edge-routes.js';
import { cors } from './http/cors.js';
import { createMetrics } from './http/metrics.js';

export interface AppModules {
  readonly handlers: Readonly<Record<string, OperationHandler>>;
  readonly authenticator: Authenticator;
}

const bodyLimit = 1024 * 1024;
const verbs = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export async function createApp(deps: Deps, contract: Contract, modules: AppModules): Promise<express.Express> {
  checkWiring(contract, modules.handlers);
  const { config, logger } = deps;
  const validators = new Map<string, DtoValidator>([...contract.operations].map(([id, op]) => [id, compileValidator(op)]));
  const queryOperations = new Map(
    [...contract.operations.values()].filter((op) => op.path.startsWith('/json/reply/')).map((op) => [op.path.toLowerCase(), op.path]),
  );

  const api = new OpenAPIBackend({ definition: contract.document as never, quick: true, validate: false, strict: true });
  api.register({
    notFound: () => { throw ApiError.of('NotFound', 'No such route or operation'); },
    methodNotAllowed: (c: Context, req: Request, res: Response) => {
      const allow = allowedMethods(api, c.request.path);
      res.set('Allow', allow.join(', '));
      throw new ApiError('MethodNotAllowed', `${req.method} is not allowed here; use ${allow.join(', ')}`, [], { Allow: allow.join(', ') });
    },
  });
  for (const [operationId, op] of contract.operations) {
    const handler = modules.handlers[operationId]!;
    const validate = validators.get(operationId)!;
    api.register(operationId, async (c: Context, req: Request, res: Response) => {
      const negotiated = negotiateFor(op, req);
      res.locals['callback'] = negotiated.callback;
      res.locals['operationId'] = operationId;
      const principal = authorize(op.access, req.get('authorization'), modules.authenticator);
      const body = op.acceptsBody && req.method !== 'GET' && req.method !== 'HEAD' ? parseBody(req.get('content-type'), req.body as Buffer) : { kind: 'none' as const };
      const built = buildDto(op, c.request.params as Record<string, string>, queryPairs(req), body);
      if (!built.ok) throw built.error;
      if (!op.validatedByHandler) {
        const checked = validate(built.value);
        if (!checked.ok) throw checked.error;
      }
      const result = await handler({ operationId, dto: built.value, principal, clientIp: req.ip ?? '', format: negotiated.format });
      sendResult(res, operationId, negotiated, result);
    });
  }
  // Tokens are checked by authorize() in the operation pipeline, where the order of checks
  // (DECISIONS §3) is ours to keep; openapi-backend's own security stage only has to pass.
  api.registerSecurityHandler('bearerAuth', () => true);
  await api.init();
  // openapi-backend rebuilds its flat list of operations (lodash, a copy of every
  // operation) on every request it routes: router.matchOperation calls getOperations()
  // each time. That was a fifth of the CPU per request (scripts/bench); the definition
  // never changes after init, so the list is built once.
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;

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
  app.use((_req, res, next) => { res.set('X-Content-Type-Options', 'nosniff'); next(); });
  app.use(cors(config.corsOrigins, (path) => allowedMethods(api, routePath(path))));
  app.use(metrics.routes());
  app.use(edgeRoutes(deps, contract));
  app.use(express.raw({ type: () => true, limit: bodyLimit }));
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      res.locals['suffix'] = splitSuffix(req.path).format;
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      await api.handleRequest({ method, path: routePath(req.path), headers: req.headers as Record<string, string>, query: {} }, req, res);
    } catch (err) {
      // openapi-backend decodes path parameters with decodeURIComponent: /impianti/%FF/files
      // throws a URIError there, which is the client's malformed URL, not a bug.
      next(err instanceof URIError ? ApiError.of('SerializationException', 'The request path is not valid percent-encoded UTF-8') : err);
    }
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const error = fromFrameworkError(err);
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

function allowedMethods(api: OpenAPIBackend, path: string): string[] {
  const allowed = verbs.filter((m) => m !== 'HEAD' && m !== 'OPTIONS' && api.router.matchOperation({ method: m, path, headers: {} }));
  return allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed;
}

function fromFrameworkError(err: unknown): ApiError {
  const type = (err as { type?: string } | null)?.type;
  if (type === 'entity.too.large') return ApiError.of('PayloadTooLarge', `The request body exceeds ${bodyLimit} bytes`);
  if (type === 'request.aborted' || type === 'entity.verify.failed' || type === 'encoding.unsupported') {
    return ApiError.of('SerializationException', 'The request body could not be read');
  }
  // Client errors raised while reading the body (a corrupt gzip body, a Content-Length
  // that lies) and driver errors that escaped a handler are sorted out by asApiError;
  // anything else unknown stays a generic 500.
  return asApiError(err);
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

