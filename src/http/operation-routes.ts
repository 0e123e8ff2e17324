// Puts every path of the contract on express's router, each method on the operation
// openapi-backend lists for it (contract.ts), so express matches a request to its
// operation and reads its path parameters. openapi-backend's own matchOperation walks and
// copies every operation of the document on each call, about 0.3-0.7 ms a request on this
// contract (design.md §2), more than a whole cheap query; express compiles each path once.
//
// The order is openapi-backend's rule: exact paths first, then path templates, the most
// specific (longest literal text) first. Paths are case-sensitive and a trailing slash is no
// declared path, except that ServiceStack's predefined routes match in any letter case
// (design.md §11).
import express, { type RequestHandler, type Router } from 'express';
import { ApiError } from '../errors/api-error.js';
import type { Contract, OperationContract } from './contract.js';

/** ServiceStack's predefined routes, where request DTO names match in any letter case (design.md §11). */
const predefinedPrefix = /^\/(json\/reply|api)\//i;

export interface RouteHandlers {
  /** Serves one operation of the contract. */
  operation(op: OperationContract): RequestHandler;
  /**
   * Answers a method the path does not declare: a CORS preflight, or 405 with `allow`.
   * Edge operations (x-edge) are left to the routers after this one.
   */
  otherMethod(allow: readonly string[]): RequestHandler;
}

/** `/impianti/{ImpiantoId}/files` in express's syntax: `/impianti/:ImpiantoId/files`. */
export function expressPath(template: string): string {
  return template.replace(/\{([^}]+)\}/g, ':$1');
}

const literalLength = (path: string): number => path.replace(/\{[^}]*\}/g, '').length;

/** The contract's paths in matching order: exact ones as listed, then templates by specificity. */
export function pathsInOrder(contract: Contract): string[] {
  const paths = [...contract.paths.keys()];
  const exact = paths.filter((p) => !p.includes('{'));
  const templated = paths.filter((p) => p.includes('{')).sort((a, b) => literalLength(b) - literalLength(a));
  return [...exact, ...templated];
}

export function operationRouter(contract: Contract, handlers: RouteHandlers): RequestHandler {
  const byRoute = new Map([...contract.operations.values()].map((op) => [`${op.method.toUpperCase()} ${op.path}`, op]));
  const routers = new SegmentRouters();
  // Edge operations are served by the routers mounted after this one (app.ts).
  const toEdge: RequestHandler = (_req, _res, next) => next('router');
  for (const path of pathsInOrder(contract)) {
    const allow = contract.paths.get(path)!;
    const route = routers.of(path).route(expressPath(path));
    for (const method of allow) {
      if (method === 'HEAD') continue;
      const op = byRoute.get(`${method} ${path}`);
      const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      route[verb](op === undefined ? toEdge : handlers.operation(op));
    }
    route.all(handlers.otherMethod(allow));
  }
  return routers.dispatch();
}

/**
 * The routes grouped by their path's first segment, one express router each: express tries
 * a router's routes one after the other (about half a microsecond each), so a request meets
 * only the routes that begin as its path does, not all sixty of the contract. A path that
 * opens with a parameter would belong to every segment, so the contract may not declare one.
 */
class SegmentRouters {
  private readonly bySegment = new Map<string, Router>();

  /** The router of `path`: case-insensitive for the predefined routes, else case-sensitive and strict. */
  of(path: string): Router {
    const segment = firstSegment(path);
    if (segment.startsWith('{')) throw new Error(`The contract's path ${path} opens with a parameter, which the routes do not serve`);
    const predefined = predefinedPrefix.test(path);
    const key = predefined ? `i:${segment.toLowerCase()}` : `s:${segment}`;
    let router = this.bySegment.get(key);
    if (router === undefined) this.bySegment.set(key, (router = express.Router({ caseSensitive: !predefined, strict: true })));
    return router;
  }

  dispatch(): RequestHandler {
    const { bySegment } = this;
    return (req, res, next) => {
      const segment = firstSegment(req.path);
      const router = bySegment.get(`s:${segment}`) ?? bySegment.get(`i:${segment.toLowerCase()}`);
      if (router === undefined) next();
      else router(req, res, next);
    };
  }
}

/** `json` of `/json/reply/X`, `` of `/`. */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
}

/** Express refuses a path parameter that is not valid percent-encoding with a URIError. */
export function pathError(err: unknown): ApiError | undefined {
  return err instanceof URIError ? ApiError.of('SerializationException', 'The request path is not valid percent-encoded UTF-8') : undefined;
}
