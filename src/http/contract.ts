// Reads the routes document (generated/openapi-routes.json: every route the server answers,
// design.md §2) once, through openapi-backend, and derives what the edge needs per route: who may call it, which properties its request DTO has (from path,
// query and body), and their JSON types.
import fs from 'node:fs';
import type { OpenAPIBackend } from 'openapi-backend';
import { contractBackend } from './contract-backend.js';

export type Access = { readonly kind: 'public' } | { readonly kind: 'roles'; readonly roles: readonly string[] };
export type ValueType = 'integer' | 'number' | 'string' | 'boolean' | 'array' | 'object';

export interface DtoProperty {
  /** Canonical camelCase name: the DTO key. */
  readonly name: string;
  readonly type: ValueType;
  /** Item type of arrays. */
  readonly items: ValueType | undefined;
  /** Accepted in the query string / path (false for body-only properties such as passwords). */
  readonly inQuery: boolean;
  readonly inPath: boolean;
  /** A property of the JSON body's schema. */
  readonly inBody: boolean;
  /** The parameter's name as the contract spells it in the path or query (`ImpiantoId`). */
  readonly paramName: string | undefined;
  /** Dereferenced JSON schema of the property. */
  readonly schema: Readonly<Record<string, unknown>>;
}

export interface OperationContract {
  /** This route's operationId: the canonical one, or a variant's (suffix, predefined route). */
  readonly operationId: string;
  /** The operation this route belongs to (`x-variant-of`, else its own id): the handler's key. */
  readonly canonicalId: string;
  /** The request DTO's name as clients know it (`x-servicestack-name`), for messages. */
  readonly dtoName: string;
  /** The format a suffix route answers (`x-format`); undefined on routes without a suffix. */
  readonly suffix: 'json' | 'csv' | 'jsonl' | undefined;
  readonly method: string;
  readonly path: string;
  readonly access: Access;
  /** The operation may answer CSV (x-csv, or an export). */
  readonly csv: boolean;
  /** An export (`x-export`): every row as a stream, CSV or JSON Lines (design.md §7). */
  readonly export: boolean;
  readonly acceptsBody: boolean;
  readonly properties: ReadonlyMap<string, DtoProperty>;
  /** Lower-cased name -> canonical name: request property names are case-insensitive (design.md §1). */
  readonly byLowerName: ReadonlyMap<string, string>;
}

export interface Contract {
  /** The routes document as written, $refs and all: what /openapi-routes.json serves. */
  readonly document: Readonly<Record<string, unknown>>;
  /** openapi-backend over the document: its operations, and the validators it compiles. */
  readonly api: OpenAPIBackend;
  /** Every route the handlers serve, by operationId (variants included, HEAD excluded). */
  readonly operations: ReadonlyMap<string, OperationContract>;
  /** The canonical operationIds: what the handler map must cover, exactly. */
  readonly canonicalIds: ReadonlySet<string>;
  /** Operations the edge serves itself (x-edge: the contract, /docs, /metrics). */
  readonly edgeIds: ReadonlySet<string>;
  /** Every declared path with its methods (upper case, HEAD wherever GET is), in document order. */
  readonly paths: ReadonlyMap<string, readonly string[]>;
}

type Json = Record<string, unknown>;
/** The order methods are listed in Allow and CORS answers. */
const verbOrder = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

export async function loadContract(file = new URL('../../../generated/openapi-routes.json', import.meta.url)): Promise<Contract> {
  const document = JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
  return contractOf(document);
}

/**
 * The contract as openapi-backend reads it: its `getOperations()` lists every operation of
 * the dereferenced document with the path's shared parameters merged in, so this module
 * neither resolves a `$ref` nor merges parameters itself.
 */
export async function contractOf(document: Json): Promise<Contract> {
  const api = await contractBackend(document);
  const operations = new Map<string, OperationContract>();
  const edgeIds = new Set<string>();
  const paths = new Map<string, string[]>();
  for (const op of api.getOperations()) {
    // HEAD is declared for every GET (design.md §2) and answered by the GET's route.
    if (op.method === 'head') continue;
    const { operationId } = op;
    if (typeof operationId !== 'string') throw new Error(`${op.method.toUpperCase()} ${op.path}: operationId missing`);
    paths.set(op.path, [...(paths.get(op.path) ?? []), op.method.toUpperCase(), ...(op.method === 'get' ? ['HEAD'] : [])]);
    const raw = op as unknown as Json;
    if (raw['x-edge'] === true) edgeIds.add(operationId);
    else operations.set(operationId, operationContract(operationId, op.method, op.path, raw));
  }
  const canonicalIds = new Set([...operations.values()].map((op) => op.canonicalId));
  for (const [path, methods] of paths) paths.set(path, methods.sort((a, b) => verbOrder.indexOf(a) - verbOrder.indexOf(b)));
  return { document, api, operations, canonicalIds, edgeIds, paths };
}

function operationContract(operationId: string, method: string, path: string, op: Json): OperationContract {
  const properties = new Map<string, DtoProperty>();
  const add = (name: string, schema: Json, where: 'path' | 'query' | 'body') => {
    // Path parameters are PascalCase in the seed's routes (`{ImpiantoId}`); the DTO is camelCase.
    const canonical = name[0]!.toLowerCase() + name.slice(1);
    const prev = properties.get(canonical);
    properties.set(canonical, {
      name: canonical,
      type: typeOf(schema, `${operationId}.${name}`),
      items: typeOf(schema, '') === 'array' ? typeOf((schema['items'] ?? {}) as Json, `${operationId}.${name}[]`) : undefined,
      inQuery: (prev?.inQuery ?? false) || where === 'query',
      inPath: (prev?.inPath ?? false) || where === 'path',
      inBody: (prev?.inBody ?? false) || where === 'body',
      paramName: prev?.paramName ?? (where === 'body' ? undefined : name),
      schema: prev?.schema ?? schema,
    });
  };
  for (const p of (op['parameters'] ?? []) as Json[]) {
    // format, callback and _ belong to the edge (negotiation), never to the request DTO.
    if (p['x-edge-parameter'] === true) continue;
    const where = p['in'];
    // A parameter sent as JSON text declares its schema under content (OpenAPI 3.0 §4.7.12).
    const schema = p['schema'] ?? ((p['content'] as Record<string, Json> | undefined)?.['application/json']?.['schema']);
    if (where === 'path' || where === 'query') add(String(p['name']), (schema ?? {}) as Json, where);
  }
  const content = ((op['requestBody'] as Json | undefined)?.['content'] ?? {}) as Record<string, Json>;
  const bodySchema = (content['application/json']?.['schema'] ?? undefined) as Json | undefined;
  for (const [name, schema] of Object.entries((bodySchema?.['properties'] ?? {}) as Record<string, Json>)) add(name, schema, 'body');

  const roles = op['x-roles'];
  const isPublic = op['x-public'] === true;
  if (isPublic === Array.isArray(roles)) {
    // Fail closed: an operation must say who may call it, exactly once (design.md §4).
    throw new Error(`${operationId}: declare exactly one of x-public: true or x-roles: [...]`);
  }
  const canonicalId = typeof op['x-variant-of'] === 'string' ? op['x-variant-of'] : operationId;
  const format = op['x-format'];
  return {
    operationId,
    canonicalId,
    dtoName: typeof op['x-servicestack-name'] === 'string' ? op['x-servicestack-name'] : canonicalId,
    suffix: format === 'json' || format === 'csv' || format === 'jsonl' ? format : undefined,
    method,
    path,
    access: isPublic ? { kind: 'public' } : { kind: 'roles', roles: roles as string[] },
    // An export answers CSV too (x-export), by its own negotiation.
    csv: op['x-csv'] === true || op['x-export'] === true,
    export: op['x-export'] === true,
    acceptsBody: bodySchema !== undefined,
    properties,
    byLowerName: new Map([...properties.keys()].map((k) => [k.toLowerCase(), k])),
  };
}

function typeOf(schema: Json, where: string): ValueType {
  const t = schema['type'];
  const types = (Array.isArray(t) ? t : [t]).filter((x) => x !== 'null');
  const type = types[0];
  if (type === undefined && where === '') return 'string';
  if (typeof type !== 'string' || !['integer', 'number', 'string', 'boolean', 'array', 'object'].includes(type)) {
    throw new Error(`${where}: unsupported schema type ${JSON.stringify(t)}`);
  }
  return type as ValueType;
}
