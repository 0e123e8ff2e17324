// How every ajv of the service is set up: the edge's request validation (openapi-backend's,
// through customizeAjv) and the contract checker's response validation share these options
// and formats, so the two read the contract's schemas alike.
import type { Ajv, Options } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import { isEmailAddress } from '../auth/account-rules.js';

// ajv-formats is CommonJS whose default export arrives under `.default` in ESM.
const addFormats = (ajvFormats as unknown as { default: ajvFormats.FormatsPlugin }).default;

/**
 * Every broken rule, not the first (design.md §3); the contract's own keywords
 * (`x-error-code`, `x-case-insensitive-properties`) are annotations, not errors; `verbose`
 * keeps each error's schema, where `x-error-code` is read.
 */
export const ajvOptions: Options = { allErrors: true, strict: false, verbose: true };

/**
 * The contract's string formats (`email`, `date-time`, `uri`, ...) on `ajv`. `email` is the
 * WHATWG grammar (HTML's input type=email) with a local part of at most 64 characters, which
 * every way of creating a user accepts (design.md §5).
 */
export function withFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  ajv.addFormat('email', { type: 'string', validate: isEmailAddress });
  return ajv;
}
