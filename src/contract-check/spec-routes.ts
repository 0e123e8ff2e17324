// Which operation of generated/openapi.json a request reached, judged the way the server
// routes (design.md §2, §7): a `.json`/`.csv` suffix is a format, not part of the path;
// names under /json/reply/ are case-insensitive; HEAD is answered by the GET operation.
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

export function loadSpecDocument(file = new URL('../../../generated/openapi.json', import.meta.url)): Json {
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
      const { path, format } = splitFormat(decodePath(rawPath.split('?')[0] ?? ''));
      const found = templates.find((t) => t.matcher.test(path));
      if (!found) return { kind: 'no-route' };
      const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
      const operation = found.ops.find((o) => o.method === verb);
      if (operation) return { kind: 'operation', operation, format };
      const allowed = found.ops.map((o) => o.method);
      return { kind: 'method-not-allowed', pathTemplate: found.template, allowed: allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed };
    },
  };
}

function matcherOf(template: string): RegExp {
  const source = template.split(/(\{[^}]+\})/).map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, template.startsWith('/json/reply/') ? 'i' : '');
}

function splitFormat(path: string): { path: string; format: 'json' | 'csv' | undefined } {
  const m = /\.(json|csv)$/i.exec(path);
  return m ? { path: path.slice(0, -m[0].length), format: m[1]!.toLowerCase() as 'json' | 'csv' } : { path, format: undefined };
}

function decodePath(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
