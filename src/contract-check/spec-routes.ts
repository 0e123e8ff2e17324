// Which operation of the routes document (generated/openapi-routes.json) a request reached,
// judged the way the server routes (design.md §2, §11): every route is declared (suffix routes and HEAD included);
// request DTO names under /json/reply/ and /api/ match in any letter case.
// Standalone on purpose: the contract suite runs against deployments, not this process.
import fs from 'node:fs';

export type Json = Record<string, unknown>;

export interface SpecOperation {
  readonly operationId: string;
  readonly method: string;
  readonly pathTemplate: string;
  /** JSON pointer of the operation object, for ajv $refs. */
  readonly pointer: string;
  readonly responses: Readonly<Record<string, unknown>>;
  /** The format a suffix route answers (`x-format`). */
  readonly format: 'json' | 'csv' | undefined;
  /** An operation of its own: not a variant route (x-variant-of) nor served by the edge (x-edge). */
  readonly canonical: boolean;
}

export type Route =
  | { readonly kind: 'operation'; readonly operation: SpecOperation; readonly format: 'json' | 'csv' | undefined }
  | { readonly kind: 'method-not-allowed'; readonly pathTemplate: string; readonly allowed: readonly string[] }
  | { readonly kind: 'no-route' };

export interface SpecRoutes {
  readonly document: Json;
  readonly operations: readonly SpecOperation[];
  route(method: string, path: string): Route;
}

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

export function loadSpecDocument(file = new URL('../../../generated/openapi-routes.json', import.meta.url)): Json {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
}

export const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

export function specRoutes(document: Json): SpecRoutes {
  const paths = (document['paths'] ?? {}) as Record<string, Json>;
  const operations: SpecOperation[] = [];
  const templates = Object.entries(paths).map(([template, item]) => {
    const ops = methods.filter((m) => item[m] !== undefined).map((m) => {
      const op = item[m] as Json;
      const operation: SpecOperation = {
        operationId: String(op['operationId']),
        method: m.toUpperCase(),
        pathTemplate: template,
        pointer: `#/paths/${escapePointer(template)}/${m}`,
        responses: (op['responses'] ?? {}) as Record<string, unknown>,
        format: op['x-format'] === 'json' || op['x-format'] === 'csv' ? op['x-format'] : undefined,
        canonical: op['x-variant-of'] === undefined && op['x-edge'] !== true,
      };
      operations.push(operation);
      return operation;
    });
    return { template, matcher: matcherOf(template), ops };
  });

  return {
    document,
    operations,
    route(method, rawPath) {
      const path = decodePath(rawPath.split('?')[0] ?? '');
      const found = templates.find((t) => t.matcher.test(path));
      if (!found) return { kind: 'no-route' };
      const operation = found.ops.find((o) => o.method === method.toUpperCase());
      if (operation) return { kind: 'operation', operation, format: operation.format };
      return { kind: 'method-not-allowed', pathTemplate: found.template, allowed: found.ops.map((o) => o.method) };
    },
  };
}

function matcherOf(template: string): RegExp {
  const source = template.split(/(\{[^}]+\})/).map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, /^\/(json\/reply|api)\//.test(template) ? 'i' : '');
}

function decodePath(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
