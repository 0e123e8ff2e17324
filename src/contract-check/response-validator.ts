// Judges one HTTP response against the routes document (generated/openapi-routes.json): is
// the status documented for the operation the request reached, are the documented headers
// there and well-formed, is the Content-Type one the response lists, and does the body match
// its schema. Shared by the contract suite (against any deployment) and
// test/support/server.ts (every test request).
import type { ErrorObject } from 'ajv';
import { schemaCompiler, type SchemaCompiler } from './schema-compiler.js';
import { escapePointer, loadSpecDocument, specRoutes, type Json, type Route } from './spec-routes.js';

export interface ObservedResponse {
  readonly method: string;
  /** As requested: path plus optional query string. */
  readonly path: string;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export interface Verdict {
  /** The operation the request reached; undefined for routes outside the operations. */
  readonly operationId: string | undefined;
  /** False when the response is outside the contract (/docs, /metrics...): nothing was checked. */
  readonly checked: boolean;
  readonly violations: readonly string[];
}

export type ResponseValidator = (response: ObservedResponse) => Verdict;

const jsonp = /^\/\*\*\/[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\(([\s\S]*)\);$/;
const isJsonMedia = (media: string) => media === 'application/json' || /^application\/[\w.-]+\+json$/.test(media);

export function createResponseValidator(document: Json = loadSpecDocument()): ResponseValidator {
  const routes = specRoutes(document);
  const schemas = schemaCompiler(document);
  return (r) => {
    const route = routes.route(r.method, r.path);
    const target = responseTarget(route, r);
    if (target === undefined) return { operationId: undefined, checked: false, violations: [] };
    const operationId = route.kind === 'operation' ? route.operation.operationId : undefined;
    if (typeof target !== 'string') return { operationId, checked: true, violations: [target.problem] };
    const success = route.kind === 'operation' ? `${route.operation.pointer}/responses/200` : undefined;
    return { operationId, checked: true, violations: checkResponse(schemas, schemas.follow(target), r, success) };
  };
}

/** The pointer of the response object the answer must match, a problem, or undefined: not ours to judge. */
function responseTarget(route: Route, r: ObservedResponse): string | { problem: string } | undefined {
  switch (route.kind) {
    case 'no-route':
      return r.status === 404 ? '#/components/responses/NotFound' : undefined;
    case 'method-not-allowed': {
      // A CORS preflight answers OPTIONS on any route (design.md §9); it is not an operation.
      if (r.method.toUpperCase() === 'OPTIONS' && r.status < 300) return undefined;
      if (r.status !== 405) return { problem: `${r.method.toUpperCase()} is not an operation of ${route.pathTemplate}: expected 405, got ${r.status}` };
      const allow = (r.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter(Boolean);
      if ([...allow].sort().join() !== [...route.allowed].sort().join()) {
        return { problem: `Allow is "${allow.join(', ')}", expected the route's verbs ${route.allowed.join(', ')}` };
      }
      return '#/components/responses/MethodNotAllowed';
    }
    case 'operation': {
      const { responses, pointer, operationId } = route.operation;
      const key = [String(r.status), `${String(r.status)[0]}XX`, 'default'].find((k) => responses[k] !== undefined);
      if (key === undefined) return { problem: `status ${r.status} is not a documented response of ${operationId} (documented: ${Object.keys(responses).join(', ')})` };
      return `${pointer}/responses/${key}`;
    }
  }
}

function checkResponse(schemas: SchemaCompiler, pointer: string, r: ObservedResponse, successPointer: string | undefined): string[] {
  const problems = checkHeaders(schemas, pointer, r.headers);
  const content = (schemas.resolve(pointer)?.['content'] ?? {}) as Json;
  const documented = Object.keys(content);
  if (documented.length === 0) return problems;
  const contentType = r.headers.get('content-type');
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!documented.includes(media)) {
    return [...problems, `Content-Type ${contentType ?? '(none)'} is not documented for status ${r.status} (documented: ${documented.join(', ')})`];
  }
  // HEAD answers carry the GET's headers without a body (RFC 9110 §9.3.2).
  if (r.method.toUpperCase() === 'HEAD') return problems;
  const schemaPointer = `${pointer}/content/${escapePointer(media)}/schema`;
  if (isJsonMedia(media)) return [...problems, ...checkJson(schemas, schemaPointer, r.text, 'body')];
  if (media === 'application/javascript') {
    const m = jsonp.exec(r.text);
    if (!m) return [...problems, 'body is not a JSONP call /**/name(<json>);'];
    const inner = parse(m[1]!);
    const innerPointer = inner !== undefined && typeof inner === 'object' && inner !== null && 'responseStatus' in inner
      ? '#/components/schemas/ErrorResponse'
      : successPointer && `${schemas.follow(successPointer)}/content/application~1json/schema`;
    return innerPointer ? [...problems, ...checkJson(schemas, innerPointer, m[1]!, 'JSONP payload')] : problems;
  }
  return problems;
}

function checkHeaders(schemas: SchemaCompiler, pointer: string, headers: Headers): string[] {
  const problems: string[] = [];
  const declared = (schemas.resolve(pointer)?.['headers'] ?? {}) as Json;
  for (const name of Object.keys(declared)) {
    const headerPointer = schemas.follow(`${pointer}/headers/${escapePointer(name)}`);
    const header = schemas.resolve(headerPointer);
    const value = headers.get(name);
    if (value === null) {
      if (header?.['required'] === true) problems.push(`header ${name} is missing`);
      continue;
    }
    const validate = schemas.validator(`${headerPointer}/schema`);
    const typed = /^(integer|number)$/.test(String(schemas.resolve(`${headerPointer}/schema`)?.['type'])) && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    if (validate && !validate(typed)) problems.push(...describe(validate.errors, `header ${name} "${value}"`));
  }
  return problems;
}

function checkJson(schemas: SchemaCompiler, pointer: string, text: string, what: string): string[] {
  const value = parse(text);
  if (value === undefined) return [`${what} is not JSON: ${text.slice(0, 80)}`];
  const validate = schemas.validator(pointer);
  if (!validate || validate(value)) return [];
  return describe(validate.errors, what);
}

function describe(errors: ErrorObject[] | null | undefined, what: string): string[] {
  return (errors ?? []).map((e) => {
    const extra = (e.params as { additionalProperty?: string }).additionalProperty;
    return `${what}${e.instancePath} ${e.message ?? 'is invalid'}${extra ? ` (${extra})` : ''}`;
  });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
