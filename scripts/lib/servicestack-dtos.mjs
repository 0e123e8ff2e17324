// "Add ServiceStack Reference" (design.md §11): TypeScript DTO classes for every operation
// that names its ServiceStack request DTO, in the shape ServiceStack's own generator
// writes (request classes with getTypeName(), getMethod() and createResponse(), response
// classes, camelCase properties), so `JsonServiceClient` gets typed calls. Served at
// /types/typescript and compiled with the project (tsc --strict), so it cannot rot.
import { generatedHeader } from './header.mjs';

const verbs = ['get', 'post', 'put', 'patch', 'delete'];

/** Renders generated/servicestack-dtos.ts from the filled contract. */
export function renderServiceStackDtos(document) {
  const schemas = document.components?.schemas ?? {};
  const resolve = (node) => (node?.$ref ? resolve(pointer(document, node.$ref)) : node);
  const classes = new Map();
  const needed = ['ResponseStatus'];
  const typeOf = (node) => {
    if (node?.$ref) {
      const name = node.$ref.split('/').pop();
      const target = schemas[name];
      if (node.$ref.startsWith('#/components/schemas/') && target?.type === 'object' && target.properties) {
        needed.push(name);
        return name;
      }
      return typeOf(resolve(node));
    }
    switch (node?.type) {
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'array':
        return `${typeOf(node.items)}[]`;
      case 'object':
        return '{ [index: string]: string }';
      default:
        return 'string';
    }
  };
  const propertiesOf = (schema) => Object.entries(resolve(schema)?.properties ?? {}).map(([name, s]) => `    ${name}?: ${typeOf(s)};`);

  const requests = new Map();
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of verbs) {
      const op = item[method];
      const name = op?.['x-servicestack-name'];
      if (!name || op['x-variant-of']) continue;
      const entry = requests.get(name) ?? { name, methods: new Set(), properties: new Map(), response: undefined, text: false };
      entry.methods.add(method.toUpperCase());
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve).filter((p) => p && !p['x-edge-parameter']);
      for (const p of params) entry.properties.set(p.name[0].toLowerCase() + p.name.slice(1), p.schema ?? p.content?.['application/json']?.schema);
      const body = resolve(op.requestBody)?.content?.['application/json']?.schema;
      for (const [prop, s] of Object.entries(resolve(body)?.properties ?? {})) entry.properties.set(prop, s);
      const content = resolve(op.responses?.['200'])?.content ?? {};
      // A 200 of text only (an export's stream): the client hands the body back as a string.
      entry.text ||= content['application/json'] === undefined && Object.keys(content).length > 0;
      entry.response ??= content['application/json']?.schema?.$ref?.split('/').pop();
      requests.set(name, entry);
    }
  }

  const out = [];
  for (const r of requests.values()) {
    const response = r.text ? 'string' : r.response ?? 'EmptyResponse';
    if (r.response) needed.push(r.response);
    // ServiceStack sends a DTO with its preferred verb: GET where the operation has one.
    const verb = r.methods.has('GET') ? 'GET' : 'POST';
    out.push([
      `export class ${r.name} implements IReturn<${response}> {`,
      ...[...r.properties].map(([prop, s]) => `    ${prop}?: ${typeOf(s)};`),
      '',
      `    public constructor(init?: Partial<${r.name}>) { (Object as any).assign(this, init); }`,
      `    public getTypeName() { return '${r.name}'; }`,
      `    public getMethod() { return '${verb}'; }`,
      `    public createResponse() { return ${r.text ? "''" : `new ${response}()`}; }`,
      '}',
    ].join('\n'));
  }
  while (needed.length > 0) {
    const name = needed.shift();
    if (classes.has(name) || requests.has(name)) continue;
    classes.set(name, null);
    const lines = propertiesOf(schemas[name]);
    classes.set(name, [`export class ${name} {`, ...lines, '', `    public constructor(init?: Partial<${name}>) { (Object as any).assign(this, init); }`, '}'].join('\n'));
  }
  return [
    generatedHeader,
    '// ServiceStack DTOs of impianti-api for JsonServiceClient (@servicestack/client), as served at',
    '// /types/typescript. Property names are camelCase; the service also accepts PascalCase.',
    '/* eslint-disable */',
    '',
    'export interface IReturn<T> { createResponse(): T; }',
    '',
    'export class EmptyResponse {',
    '    responseStatus?: ResponseStatus;',
    '',
    '    public constructor(init?: Partial<EmptyResponse>) { (Object as any).assign(this, init); }',
    '}',
    '',
    [...[...classes.values()].sort(), ...out].join('\n\n'),
    '',
  ].join('\n');
}

function pointer(document, ref) {
  return ref.slice(2).split('/').reduce((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
}
