// Finds the operation a request is for. openapi-backend's router does the matching
// (exact paths first, then path templates by specificity; a trailing slash is refused here),
// and its answers are remembered (below);
// this module asks it directly instead of going through OpenAPIBackend.handleRequest,
// whose per-request parseRequest parses cookies, lower-cases every header, clones the
// query and compiles the path template again: work the DTO builder (request-dto.ts)
// does itself, and about a twentieth of the CPU of a request.
import type { OpenAPIBackend } from 'openapi-backend';
import { ApiError, fail, ok, type Result } from '../errors/api-error.js';
import type { Contract, OperationContract } from './contract.js';

export type Route =
  | { readonly kind: 'operation'; readonly operation: OperationContract; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'methodNotAllowed'; readonly allow: readonly string[] }
  | { readonly kind: 'notFound' };

export interface OperationRoutes {
  /** `method` is upper case, HEAD already folded into GET; `path` carries no query string. */
  match(method: string, path: string): Result<Route>;
  /** The methods `path` answers (HEAD wherever GET is), for Allow and CORS preflights. */
  allowedMethods(path: string): string[];
}

const verbs = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Method-and-path answers kept beyond the contract's exact paths (about 100 bytes each). */
export const recentPaths = 10_000;

/** `api` must be initialised; its definition never changes afterwards. */
export function operationRoutes(api: OpenAPIBackend, contract: Contract): OperationRoutes {
  const byId = new Map([...contract.operations.values()].map((op) => [op.operationId, { op, params: paramReader(op.path) }]));
  // openapi-backend's matcher walks every operation on each call and compiles each path
  // template into a RegExp again: for a templated path (/impianti/5/files) that is a
  // quarter of the CPU of the request. Its answer for a method and path never
  // changes, so it is kept: for ever for the paths the contract spells exactly (a closed
  // set), and for the most recent `recentPaths` others (ids in templated paths, and the 404s
  // of scanners, which therefore cannot grow the memo past its bound).
  type Found = ReturnType<typeof api.router.matchOperation> | undefined;
  const exact = new Map<string, Found>();
  const recent = new Map<string, Found>();
  const find = (method: string, path: string): Found => {
    const key = `${method} ${path}`;
    const kept = exact.get(key);
    if (kept) return kept;
    if (recent.has(key)) {
      const found = recent.get(key);
      // Most recently used last: Map keeps insertion order, so the first key is the oldest.
      recent.delete(key);
      recent.set(key, found);
      return found;
    }
    const found = api.router.matchOperation({ method, path, headers: {} });
    if (found && found.path === path) exact.set(key, found);
    else {
      if (recent.size >= recentPaths) recent.delete(recent.keys().next().value!);
      recent.set(key, found);
    }
    return found;
  };

  function allowedMethods(path: string): string[] {
    const allowed = verbs.filter((m) => find(m, path));
    return allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed;
  }

  return {
    allowedMethods,
    match(method, path) {
      // openapi-backend ignores a trailing slash; the contract does not declare such paths,
      // so they are no route (the route census proves the two sets equal).
      if (path.length > 1 && path.endsWith('/')) return ok({ kind: 'notFound' });
      const found = find(method, path);
      if (!found) {
        const allow = allowedMethods(path);
        return ok(allow.length > 0 ? { kind: 'methodNotAllowed', allow } : { kind: 'notFound' });
      }
      // The edge serves its own declared routes (the contract, /docs, /metrics).
      if (contract.edgeIds.has(found.operationId ?? '')) return ok({ kind: 'notFound' });
      const entry = byId.get(found.operationId ?? '');
      if (!entry) throw new Error(`openapi-backend matched ${method} ${path} to an operation the contract lacks`);
      const params = entry.params(path);
      return params.ok ? ok({ kind: 'operation', operation: entry.op, params: params.value }) : params;
    },
  };
}

/**
 * Reads a path's template parameters (`/impianti/{ImpiantoId}/files`), percent-decoded.
 * Compiled once per operation; a path that is not valid percent-encoded UTF-8 is the
 * client's malformed URL (400), not a bug.
 */
function paramReader(template: string): (path: string) => Result<Record<string, string>> {
  const names: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([^/]+)';
    })
    .join('');
  if (names.length === 0) return () => ok({});
  const pattern = new RegExp(`^${source}/*$`);
  return (path) => {
    const m = pattern.exec(path);
    const params: Record<string, string> = {};
    try {
      names.forEach((name, i) => { params[name] = decodeURIComponent(m?.[i + 1] ?? ''); });
    } catch {
      return fail(ApiError.of('SerializationException', 'The request path is not valid percent-encoded UTF-8'));
    }
    return ok(params);
  };
}
