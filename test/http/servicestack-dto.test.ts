// ServiceStack's own DTO properties (design.md §11): accepted, ignored or refused exactly as
// the record says, in the PascalCase ServiceStack clients send, and REFRESH_TOKEN_ROTATION
// in both modes.
import { expect } from 'chai';
import type { Dialect } from '../../src/db/dialect.js';
import { forEachDialect } from '../support/dialects.js';
import { expectError } from '../support/expect-error.js';
import { startServer, type TestServer } from '../support/server.js';

const password = 'correct-horse-1';

forEachDialect('ServiceStack DTO properties', (dialect: Dialect) => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ dialect });
    await s.request('POST', '/register', { json: { userName: 'ss.user', password } });
  });
  after(() => s.close());
  const signIn = async (extra: Record<string, unknown> = {}) =>
    s.request('POST', '/json/reply/Authenticate', { json: { Provider: 'credentials', UserName: 'ss.user', Password: password, RememberMe: true, Meta: { app: 'x' }, ...extra } });

  it('Authenticate takes provider, rememberMe, meta and useTokenCookie: false, as ServiceStack sends them', async () => {
    const r = await signIn({ UseTokenCookie: false });
    expect(r.status, r.text).to.equal(200);
    expect(r.body).to.include.keys('bearerToken', 'refreshToken', 'sessionId');
  });

  it('refuses an unknown provider and useTokenCookie: true with 400 InvalidValue naming the field', async () => {
    expectError(await signIn({ provider: 'google' }), 400, 'InvalidValue', 'Provider');
    expectError(await signIn({ useTokenCookie: true }), 400, 'InvalidValue', 'UseTokenCookie');
    expectError(await s.request('POST', '/access-token', { json: { refreshToken: 'x', useTokenCookie: true } }), 400, 'InvalidValue', 'UseTokenCookie');
    expectError(await signIn({ bogus: 1 }), 400, 'UnknownField', 'bogus');
  });

  it('provider "logout" closes the session of the bearer token, and needs a valid one', async () => {
    const session = (await signIn()).body;
    const out = await s.request('POST', '/api/Authenticate', { token: session.bearerToken, json: { provider: 'logout' } });
    expect([out.status, out.body]).to.deep.equal([200, {}]);
    expectError(await s.request('POST', '/access-token', { json: { refreshToken: session.refreshToken } }), 401, 'Unauthorized');
    expectError(await s.request('POST', '/api/Authenticate', { json: { provider: 'logout' } }), 401, 'Unauthorized');
    expectError(await s.request('POST', '/api/Authenticate', { token: 'not-a-token', json: { provider: 'logout' } }), 401, 'Unauthorized');
  });

  it('GetAccessToken takes meta and useTokenCookie: false', async () => {
    const session = (await signIn()).body;
    const r = await s.request('POST', '/json/reply/GetAccessToken', { json: { RefreshToken: session.refreshToken, UseTokenCookie: false, Meta: {} } });
    expect(r.status, r.text).to.equal(200);
  });

  it('AssignRoles takes an empty permissions list and meta, answers allPermissions: [], refuses permissions', async () => {
    const admin = await s.tokenFor(['Admin']);
    const r = await s.request('POST', '/api/AssignRoles', { token: admin, json: { UserName: 'ss.user', Roles: ['ApiUser'], Permissions: [], Meta: { a: 'b' } } });
    expect([r.status, r.body]).to.deep.equal([200, { allRoles: ['ApiUser'], allPermissions: [] }]);
    expectError(await s.request('POST', '/unassignroles', { token: admin, json: { userName: 'ss.user', roles: ['ApiUser'], permissions: ['Write'] } }), 400, 'InvalidValue', 'Permissions');
    // The refused request changed nothing: the role is still there.
    const user = await s.knex('app_user').where({ user_name: 'ss.user' }).first('id');
    expect((await s.knex('app_user_role').where({ user_id: user.id }).select('role')).map((r: { role: string }) => r.role)).to.deep.equal(['ApiUser']);
  });
});

forEachDialect('REFRESH_TOKEN_ROTATION', (dialect: Dialect) => {
  for (const mode of ['reuse', 'rotate'] as const) {
    describe(mode, () => {
      let s: TestServer;
      before(async () => {
        s = await startServer({ dialect, env: { REFRESH_TOKEN_ROTATION: mode } });
        await s.request('POST', '/register', { json: { userName: 'rot.user', password } });
      });
      after(() => s.close());

      it(mode === 'reuse' ? 'refreshes three times with the first token, which stays the same until logout' : 'spends the token: its second use is 401 and revokes the session', async () => {
        const first = (await s.request('POST', '/auth/credentials', { json: { userName: 'rot.user', password } })).body;
        const refresh = (refreshToken: string) => s.request('POST', '/access-token', { json: { refreshToken } });
        const one = await refresh(first.refreshToken);
        expect(one.status).to.equal(200);
        if (mode === 'reuse') {
          for (let i = 0; i < 2; i++) {
            const again = await refresh(first.refreshToken);
            expect(again.status).to.equal(200);
            expect(again.body.refreshToken).to.equal(first.refreshToken);
          }
          expect(one.body.refreshToken).to.equal(first.refreshToken);
          await s.request('POST', '/auth/logout', { token: one.body.accessToken });
          expectError(await refresh(first.refreshToken), 401, 'Unauthorized');
        } else {
          expect(one.body.refreshToken).not.to.equal(first.refreshToken);
          expectError(await refresh(first.refreshToken), 401, 'Unauthorized');
          // The whole session is revoked: the successor token is refused too.
          expectError(await refresh(one.body.refreshToken), 401, 'Unauthorized');
        }
      });
    });
  }
});
