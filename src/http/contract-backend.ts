// openapi-backend over the contract: it lists the operations (contract.ts) and validates
// requests (validate-request.ts), both through its public API.
import type { Ajv } from 'ajv';
import { OpenAPIBackend, type ValidationContext } from 'openapi-backend';
import { ajvOptions, withFormats } from './ajv.js';

/**
 * `quick` compiles each operation's validators when first asked. openapi-backend builds a
 * fresh ajv for every validator it compiles, and each compiles the JSON Schema meta-schema
 * again: the first one of each validation context (parameters coerce their types, bodies do
 * not) is kept and serves them all.
 */
export async function contractBackend(document: Readonly<Record<string, unknown>>): Promise<OpenAPIBackend> {
  const kept = new Map<ValidationContext, Ajv>();
  const customizeAjv = (fresh: Ajv, _options: unknown, context: ValidationContext): Ajv => {
    if (!kept.has(context)) kept.set(context, withFormats(fresh));
    return kept.get(context)!;
  };
  const api = new OpenAPIBackend({ definition: document as never, quick: true, validate: true, strict: true, ajvOpts: ajvOptions, customizeAjv });
  await api.init();
  return api;
}
