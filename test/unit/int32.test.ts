// The int32 range is defined once (src/int32.ts); the generator keeps a copy for the JSON
// schemas because it runs before TypeScript is built. Here the two are held equal, as served.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { INT32_MAX, INT32_MIN, isInt32 } from '../../src/int32.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const served = JSON.parse(fs.readFileSync(path.join(root, 'generated/openapi.json'), 'utf8')) as Json;

/** Every schema node with `format: int32`, wherever the contract declares one. */
function int32Schemas(node: unknown, at: string, out: Array<{ at: string; schema: Json }>) {
  if (Array.isArray(node)) node.forEach((n, i) => int32Schemas(n, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    const o = node as Json;
    if (o['format'] === 'int32') out.push({ at, schema: o });
    for (const [k, v] of Object.entries(o)) int32Schemas(v, `${at}/${k}`, out);
  }
  return out;
}

describe('int32 range', () => {
  it('is the two\'s-complement 32-bit range', () => {
    expect(INT32_MIN).to.equal(-(2 ** 31));
    expect(INT32_MAX).to.equal(2 ** 31 - 1);
    expect([INT32_MIN, 0, INT32_MAX].every(isInt32)).to.equal(true);
    expect([INT32_MIN - 1, INT32_MAX + 1, 1.5, '1', NaN].some(isInt32)).to.equal(false);
  });

  it('every bound an int32 schema of the served contract declares lies inside it', () => {
    const found = int32Schemas(served, '#', []);
    const bounded = found.filter(({ schema }) => schema['minimum'] !== undefined || schema['maximum'] !== undefined);
    expect(bounded.length).to.be.greaterThan(50);
    const loose = bounded.filter(({ schema }) => (schema['minimum'] ?? INT32_MIN) < INT32_MIN || (schema['maximum'] ?? INT32_MAX) > INT32_MAX);
    expect(loose.map((f) => f.at)).to.deep.equal([]);
    // The query filters take the whole range: the generator's copy says exactly this.
    const filter = served['components']['schemas']['SoggettoRecapitoQuery']['properties']['idGreaterThan'] as Json;
    expect([filter['minimum'], filter['maximum']]).to.deep.equal([INT32_MIN, INT32_MAX]);
  });
});
