// The RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers) on the
// answers of the operations the service limits, on both engines: the same figures from the
// in-memory limiter (SQLite) and the shared one (MySQL), since both count in windows
// aligned on the clock (design.md §4, §12). The policy names are the contract's.
import { expect } from 'chai';
import type { Dialect } from '../../src/db/dialect.js';
import { loadContract } from '../../src/http/contract.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestResponse } from '../support/server.js';

// 18 s into a window: every answer says the window ends in 42 s.
const clock = () => new Date(Date.UTC(2026, 10, 27, 8, 0, 18));
const fields = (r: TestResponse) => [r.status, r.headers.get('ratelimit-policy'), r.headers.get('ratelimit'), r.headers.get('retry-after')];

forEachDialect('RateLimit fields', (dialect: Dialect) => {
  it('Register counts every request: its answers, 400 and 429 included, say what is left', async () => {
    const s = await startServer({ dialect, env: { RATE_LIMIT_REGISTER_PER_MIN: '3' }, clock });
    try {
      const register = (json: Record<string, unknown>) => s.request('POST', '/register', { json });
      const answers = [
        await register({ userName: 'primo', password: 'Password-sicura-1' }),
        await register({ userName: 'x', password: 'Password-sicura-1' }),
        await s.request('PUT', '/json/reply/Register', { json: { userName: 'terzo', password: 'Password-sicura-1' } }),
        await register({ userName: 'quarto', password: 'Password-sicura-1' }),
      ];
      expect(answers.map(fields)).to.deep.equal([
        [200, '"register";q=3;w=60', '"register";r=2;t=42', null],
        [400, '"register";q=3;w=60', '"register";r=1;t=42', null],
        [200, '"register";q=3;w=60', '"register";r=0;t=42', null],
        [429, '"register";q=3;w=60', '"register";r=0;t=42', '42'],
      ]);
    } finally {
      await s.close();
    }
  });

  it('a sign-in says how many failures are left; each failure spends one; past them, 429', async () => {
    const s = await startServer({ dialect, env: { RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '2' }, clock });
    try {
      expect((await s.request('POST', '/register', { json: { userName: 'mario', password: 'Password-sicura-1' } })).status).to.equal(200);
      const signIn = (password: string) => s.request('POST', '/auth/credentials', { json: { userName: 'mario', password } });
      const answers = [await signIn('Password-sicura-1'), await signIn('sbagliata'), await signIn('sbagliata'), await signIn('Password-sicura-1')];
      expect(answers.map(fields)).to.deep.equal([
        [200, '"sign-in-failures";q=2;w=60', '"sign-in-failures";r=2;t=42', null],
        [401, '"sign-in-failures";q=2;w=60', '"sign-in-failures";r=1;t=42', null],
        [401, '"sign-in-failures";q=2;w=60', '"sign-in-failures";r=0;t=42', null],
        [429, '"sign-in-failures";q=2;w=60', '"sign-in-failures";r=0;t=42', '42'],
      ]);
    } finally {
      await s.close();
    }
  });

  it('no fields while a limit is off, nor on operations without one', async () => {
    const s = await startServer({ dialect, clock });
    try {
      const answers = [
        await s.request('POST', '/register', { json: { userName: 'libero', password: 'Password-sicura-1' } }),
        await s.request('POST', '/auth/credentials', { json: { userName: 'libero', password: 'sbagliata' } }),
        await s.request('POST', '/access-token', { json: { refreshToken: 'non-un-token' } }),
      ];
      expect(answers.map(fields)).to.deep.equal([
        [200, null, null, null],
        [401, null, null, null],
        [401, null, null, null],
      ]);
    } finally {
      await s.close();
    }
  });
});

describe('RateLimit fields in the contract', () => {
  it('names the policies the server answers, on exactly the operations that count', async () => {
    const contract = await loadContract();
    const policies = new Map<string, unknown>();
    for (const item of Object.values(contract.document['paths'] as Record<string, Record<string, { operationId?: string; 'x-rate-limit'?: unknown; 'x-variant-of'?: string }>>)) {
      for (const op of Object.values(item)) if (op?.operationId && !op['x-variant-of'] && op['x-rate-limit']) policies.set(op.operationId, op['x-rate-limit']);
    }
    expect(Object.fromEntries(policies)).to.deep.equal({
      Register: 'register',
      RegisterPut: 'register',
      Authenticate: 'sign-in-failures',
      // The exports' limit counts exports running at once (design.md §7, Exports).
      CaratteristicaGruppoQueryExport: 'export',
      CaratteristicaGruppoQueryExportGet: 'export',
      SoggettoRecapitoQueryExport: 'export',
      SoggettoRecapitoQueryExportGet: 'export',
    });
  });
});
