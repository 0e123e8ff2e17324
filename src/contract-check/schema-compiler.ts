// Compiles pieces of the OpenAPI document into ajv validators, by JSON pointer. Schemas are
// dereferenced and then *closed*: an object schema that lists properties but says nothing
// about others gets `additionalProperties: false`. OpenAPI would allow extra properties,
// but a property the contract does not name is drift that typed clients never see (or a
// leak), so the checks treat it as a violation.
import { Ajv, type ValidateFunction } from 'ajv';
import { ajvOptions, withFormats } from '../http/ajv.js';
import type { Json } from './spec-routes.js';

export interface SchemaCompiler {
  /** The pointer itself, or where the `$ref` found there finally leads. */
  follow(pointer: string): string;
  /** The node at a local pointer (`#/components/...`), following a `$ref` found there. */
  resolve(pointer: string): Json | undefined;
  /** A validator for the schema at `pointer`; undefined when there is none. */
  validator(pointer: string): ValidateFunction | undefined;
}

export function schemaCompiler(document: Json): SchemaCompiler {
  const ajv = withFormats(new Ajv(ajvOptions));
  const cache = new Map<string, ValidateFunction | undefined>();

  const at = (pointer: string): unknown => {
    if (!pointer.startsWith('#')) throw new Error(`only local $refs are supported, got ${pointer}`);
    return pointer
      .slice(1)
      .split('/')
      .slice(1)
      .reduce<unknown>((node, key) => (node === undefined || node === null ? undefined : (node as Json)[key.replace(/~1/g, '/').replace(/~0/g, '~')]), document);
  };

  const follow = (pointer: string): string => {
    let current = pointer;
    for (let hops = 0; ; hops++) {
      const ref = (at(current) as Json | undefined)?.['$ref'];
      if (typeof ref !== 'string') return current;
      if (hops > 20) throw new Error(`$ref chain too long at ${pointer}`);
      current = ref;
    }
  };
  const resolve = (pointer: string): Json | undefined => at(follow(pointer)) as Json | undefined;

  const closed = (node: unknown, trail: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((n) => closed(n, trail));
    if (node === null || typeof node !== 'object') return node;
    const ref = (node as Json)['$ref'];
    if (typeof ref === 'string') {
      if (trail.includes(ref)) throw new Error(`recursive schema ${ref} is not supported`);
      return closed(at(ref), [...trail, ref]);
    }
    const copy = Object.fromEntries(Object.entries(node as Json).map(([k, v]) => [k, k === 'example' ? v : closed(v, trail)]));
    if (copy['properties'] !== undefined && copy['additionalProperties'] === undefined) copy['additionalProperties'] = false;
    return copy;
  };

  return {
    follow,
    resolve,
    validator(pointer) {
      if (!cache.has(pointer)) {
        const schema = resolve(pointer);
        cache.set(pointer, schema === undefined ? undefined : ajv.compile(closed(schema, []) as Json));
      }
      return cache.get(pointer);
    },
  };
}
