// A bound edited in the spec is enforced with no code changed (design.md §3): a copy of
// spec/ gets a tighter bound on a Register property, on the query filters (In lists and
// string values) and on the queries' Take; scripts/generate.mjs --root regenerates its
// contract, and the same build of the server, serving that contract, refuses what the
// edits refuse and still answers what they allow.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Dialect } from '../../src/db/dialect.js';
import { contractOf } from '../../src/http/contract.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');

/** Replaces `from` with `to` in a spec file of `dir`, once; the edit must find its text. */
function edit(dir: string, file: string, from: string, to: string): void {
  const at = path.join(dir, 'spec', file);
  const text = fs.readFileSync(at, 'utf8');
  expect(text.split(from), `${file}: ${from}`).to.have.length(2);
  fs.writeFileSync(at, text.replace(from, to));
}

/** spec/ with the edits, regenerated under a temporary root; the contract it yields. */
function editedContract() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-spec-'));
  try {
    fs.cpSync(path.join(root, 'spec'), path.join(dir, 'spec'), { recursive: true });
    // The generator checks the operator table against the engine's vocabulary.
    fs.mkdirSync(path.join(dir, 'src/query'), { recursive: true });
    fs.copyFileSync(path.join(root, 'src/query/catalog-types.ts'), path.join(dir, 'src/query/catalog-types.ts'));
    edit(dir, 'openapi.yaml', 'firstName: { type: string, maxLength: 100,', 'firstName: { type: string, maxLength: 10,');
    edit(dir, 'query-operators.yaml', 'inMaxItems: 1000', 'inMaxItems: 3');
    edit(dir, 'query-operators.yaml', 'string:  { type: string, maxLength: 1000 }', 'string:  { type: string, maxLength: 20 }');
    edit(dir, 'query-operators.yaml', 'takeMaximum: 2147483647', 'takeMaximum: 50');
    const run = spawnSync(process.execPath, [path.join(root, 'scripts/generate.mjs'), '--root', dir], { encoding: 'utf8' });
    expect(run.status, run.stderr).to.equal(0);
    return contractOf(JSON.parse(fs.readFileSync(path.join(dir, 'generated/openapi-routes.json'), 'utf8')) as Record<string, unknown>);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const contract = await editedContract();

forEachDialect('contract edits: a bound edited in the spec, regenerated, is enforced with no code changed', (dialect: Dialect) => {
  let s: TestServer;
  let admin: string;
  before(async () => {
    s = await startServer({ dialect, contract });
    admin = await s.tokenFor(['Admin']);
  });
  after(() => s.close());

  const fieldErrors = (r: { body: { responseStatus: { errors: { errorCode: string; fieldName: string; message: string }[] } } }) =>
    r.body.responseStatus.errors.map((e) => [e.errorCode, e.fieldName, e.message]);

  it('Register: firstName at most 10 characters', async () => {
    const at = await s.request('POST', '/register', { json: { userName: 'dieci', firstName: 'a'.repeat(10), password: 'Password-sicura-1' } });
    expect(at.status, at.text).to.equal(200);
    const past = await s.request('POST', '/register', { json: { userName: 'undici', firstName: 'a'.repeat(11), password: 'Password-sicura-1' } });
    expect(past.status).to.equal(400);
    expect(fieldErrors(past)).to.deep.equal([['Length', 'FirstName', "'FirstName' must be 10 characters or fewer."]]);
  });

  it('a query filter: In lists of at most 3 values, string values of at most 20 characters', async () => {
    const at = await s.request('GET', `/json/reply/SoggettoRecapitoQuery?IdIn=1,2,3&RecapitoStartsWith=${'a'.repeat(20)}`, { token: admin });
    expect(at.status, at.text).to.equal(200);
    const past = await s.request('POST', '/json/reply/SoggettoRecapitoQuery', { token: admin, json: { idIn: [1, 2, 3, 4], recapitoStartsWith: 'a'.repeat(21) } });
    expect(past.status).to.equal(400);
    expect(fieldErrors(past)).to.deep.equal([
      ['TooMany', 'IdIn', "'IdIn' takes at most 3 values, got 4"],
      ['Length', 'RecapitoStartsWith', "'RecapitoStartsWith' must be at most 20 characters"],
    ]);
  });

  it("a query's Take: at most 50", async () => {
    const at = await s.request('GET', '/json/reply/CaratteristicaGruppoQuery?Take=50', { token: admin });
    expect(at.status, at.text).to.equal(200);
    for (const [method, query] of [['GET', '?Take=51'], ['POST', '']] as const) {
      const past = await s.request(method, `/json/reply/CaratteristicaGruppoQuery${query}`, { token: admin, ...(method === 'POST' ? { json: { take: 51 } } : {}) });
      expect(past.status, method).to.equal(400);
      expect(fieldErrors(past).map(([code, field]) => [code, field]), method).to.deep.equal([['InvalidValue', 'Take']]);
    }
  });
});
