// The error codes are defined once, in src/errors/catalogue.ts. The contract names them in
// prose (its Errors section) and in the examples of its shared responses; this test holds
// both to the catalogue, so neither can drift from what the server answers.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { fieldErrorCodes, statusOf, statusOfCode } from '../../src/errors/catalogue.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const served = JSON.parse(fs.readFileSync(path.join(root, 'generated/openapi.json'), 'utf8')) as Json;
const prose = (served['info']['description'] as string).replace(/\s+/g, ' ');
const between = (from: string, to: string) => prose.slice(prose.indexOf(from) + from.length, prose.indexOf(to, prose.indexOf(from)));

describe('error catalogue', () => {
  it('the contract lists exactly the field codes of the catalogue', () => {
    const listed = [...between('Field codes:', 'Top-level codes:').matchAll(/`(\w+)`/g)].map((m) => m[1]);
    expect(listed).to.have.members([...fieldErrorCodes]);
  });

  it('the contract lists exactly the top-level codes of the catalogue, each with its status', () => {
    const text = between('Top-level codes:', '## ');
    const listed = new Map<string, number>();
    // `A` (401, ...) or `A` / `B` (503, ...): every name before a status gets that status.
    for (const m of text.matchAll(/((?:`\w+`(?: \/ )?)+) \((\d{3})/g)) {
      for (const n of m[1]!.matchAll(/`(\w+)`/g)) listed.set(n[1]!, Number(m[2]));
    }
    expect(Object.fromEntries(listed)).to.deep.equal({ ...statusOfCode });
  });

  it('every shared response shows an error code whose status is the one it is declared under', () => {
    const responses = served['components']['responses'] as Json;
    const wrong: string[] = [];
    let checked = 0;
    for (const [pathName, item] of Object.entries(served['paths'] as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        for (const [status, response] of Object.entries(((op as Json)['responses'] ?? {}) as Json)) {
          const ref = (response as Json)['$ref'] as string | undefined;
          if (!ref?.startsWith('#/components/responses/')) continue;
          const shared = responses[ref.split('/').pop()!] as Json;
          const example = shared['content']?.['application/json']?.['example'] as Json | undefined;
          const code = example?.['responseStatus']?.['errorCode'] as string | undefined;
          if (!code) continue;
          checked++;
          if (String(statusOf(code as never)) !== status) wrong.push(`${method.toUpperCase()} ${pathName} ${status}: ${code} is ${statusOf(code as never)}`);
        }
      }
    }
    expect(checked).to.be.greaterThan(20);
    expect(wrong).to.deep.equal([]);
  });
});
