// SQL injection strings that do reach SQL: well-formed requests whose every string value
// is an injection payload. The malformed-request fuzzer refuses its requests before any
// query runs; here the payloads are bound parameters of real queries, on both engines.
// They must match literally (nothing, since no row holds them), never run as SQL, and
// leave every table as it was.
import { expect } from 'chai';
import { queryDtos } from '../../generated/query-catalog.js';
import type { QueryDtoSpec } from '../../src/query/catalog-types.js';
import { forEachDialect } from '../support/dialects.js';
import { startFuzzTarget, type FuzzTarget } from './support/fuzz-target.js';
import { sqlInjections } from './support/hostile-values.js';
import { snapshot, type Snapshot } from './support/table-snapshot.js';

/** Operators that match a value literally: an injection payload matches no demo row. */
const literal = new Set(['eq', 'in', 'startsWith', 'endsWith', 'contains']);

forEachDialect('fuzz: SQL injection in bound values', (dialect) => {
  let target: FuzzTarget;
  let initial: Snapshot;
  before(async function () {
    this.timeout(120_000);
    target = await startFuzzTarget(dialect, 'injection');
    initial = await snapshot(target.db.db);
  });
  after(async () => target?.close());

  const call = async (method: string, path: string, token: string | undefined, body?: unknown) => {
    const res = await fetch(`${target.service.url}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  for (const dto of Object.values(queryDtos) as QueryDtoSpec[]) {
    const filters = dto.filters.filter((f) => dto.fields.find((x) => x.name === f.field)!.family === 'string');
    it(`${dto.operation}: ${filters.length} string filters x ${sqlInjections.length} payloads, by POST and GET, match literally`, async function () {
      this.timeout(120_000);
      let probes = 0;
      const tasks = filters.flatMap((f) => sqlInjections.map((payload) => async () => {
        const value = f.operator === 'in' ? [payload, `${payload} `] : f.operator === 'between' ? [payload, `${payload}~`] : payload;
        const text = Array.isArray(value) ? JSON.stringify(value) : value;
        const viaPost = await call('POST', `/json/reply/${dto.operation}`, target.tokens.admin, { [f.property]: value, include: 'Total' });
        const viaGet = await call('GET', `/json/reply/${dto.operation}?${new URLSearchParams({ [f.property]: text, include: 'Total', meta: JSON.stringify({ [payload]: payload }) })}`, target.tokens.admin);
        for (const r of [viaPost, viaGet]) {
          probes++;
          if (payload.includes('\u0000')) {
            // SQLite's LIKE would stop at the NUL and match every row: refused on both engines.
            expect([r.status, r.body['responseStatus']?.errors?.[0]?.fieldName], text).to.deep.equal([400, f.name]);
            continue;
          }
          expect(r.status, `${f.property}=${text}: ${JSON.stringify(r.body)}`).to.equal(200);
          expect(r.body['results']).to.be.an('array');
          if (literal.has(f.operator)) expect(r.body['total'], `${f.property}=${text}`).to.equal(0);
        }
      }));
      // Eight at a time: enough to keep the service busy, few enough to read failures.
      for (let i = 0; i < tasks.length; i += 8) await Promise.all(tasks.slice(i, i + 8).map((t) => t()));
      expect(probes).to.equal(filters.length * sqlInjections.length * 2);
    });
  }

  it('payloads as user names reach the account queries and find nobody', async () => {
    for (const payload of sqlInjections) {
      const signIn = await call('POST', '/auth/credentials', undefined, { userName: payload, password: 'whatever-password' });
      expect(signIn.status, payload).to.equal(401);
      const assign = await call('POST', '/assignroles', target.tokens.admin, { userName: payload, roles: ['Admin'] });
      expect(assign.status, payload).to.equal(404);
      const refresh = await call('POST', '/access-token', undefined, { refreshToken: payload });
      expect(refresh.status, payload).to.equal(401);
    }
  });

  it('leaves every table unchanged', async () => {
    expect(await snapshot(target.db.db)).to.deep.equal(initial);
  });
});
