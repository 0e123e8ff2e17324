// Role escalation through Register (issue 7): roles can only come from DEFAULT_ROLES and
// an Admin's AssignRoles. A `roles` property in any spelling or place is refused and
// creates nobody; roles smuggled into Meta are stored as plain text and grant nothing;
// prototype keys never reach Object.prototype (the app runs in this process).
import { expect } from 'chai';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

const adminOnly = '/json/reply/CaratteristicaGruppoQuery';
const password = 'correct-horse';

forEachDialect('security: role escalation through Register', (dialect) => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ dialect });
  });
  after(() => s.close());

  const users = async () => Number((await s.knex('app_user').count({ n: '*' }))[0]?.['n']);
  const rolesInToken = (jwt: string): unknown => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString())['roles'];

  it('refuses a roles property in the body, the query string or a form, in any letter case', async () => {
    const before = await users();
    const attempts = [
      s.request('POST', '/register', { json: { userName: 'esc1', password, roles: ['Admin'] } }),
      s.request('POST', '/register', { json: { userName: 'esc2', password, Roles: ['Admin'], autoLogin: true } }),
      s.request('PUT', '/register', { json: { userName: 'esc3', password, ROLES: 'Admin' } }),
      s.request('POST', '/register?roles=Admin', { json: { userName: 'esc4', password } }),
      s.request('POST', '/register', { form: { userName: 'esc5', password, roles: 'Admin' } }),
      s.request('POST', '/register', { json: { userName: 'esc6', password, permissions: ['*'], isAdmin: true } }),
    ];
    for (const r of await Promise.all(attempts)) {
      expect(r.status, r.text).to.equal(400);
      expect(r.body.responseStatus.errors.map((e: { errorCode: string }) => e.errorCode)).to.include('UnknownField');
    }
    expect(await users()).to.equal(before);
  });

  it('refuses prototype keys and leaves Object.prototype alone', async () => {
    const bodies = [
      `{"userName":"proto1","password":"${password}","__proto__":{"roles":["Admin"]}}`,
      `{"userName":"proto2","password":"${password}","constructor":{"prototype":{"roles":["Admin"]}}}`,
    ];
    for (const body of bodies) {
      const r = await s.request('POST', '/register', { body, headers: { 'content-type': 'application/json' } });
      expect(r.status, r.text).to.equal(400);
    }
    expect(({} as Record<string, unknown>)['roles']).to.equal(undefined);
  });

  it('stores roles smuggled in Meta as plain text: the user has no role, its tokens none, Admin operations answer 403', async () => {
    const meta = { roles: 'Admin', Roles: '["Admin"]', isAdmin: 'true', constructor: 'Admin' };
    const body = JSON.stringify({ userName: 'metauser', password, autoLogin: true, meta }).replace('"meta":{', '"meta":{"__proto__":"Admin",');
    const registered = await s.request('POST', '/register', { body, headers: { 'content-type': 'application/json' } });
    expect(registered.status, registered.text).to.equal(200);
    expect(rolesInToken(registered.body.bearerToken)).to.deep.equal([]);
    const signedIn = (await s.request('POST', '/auth/credentials', { json: { userName: 'metauser', password } })).body;
    expect(signedIn.roles).to.deep.equal([]);
    expect(rolesInToken(signedIn.bearerToken)).to.deep.equal([]);
    const refreshed = (await s.request('POST', '/access-token', { json: { refreshToken: signedIn.refreshToken } })).body;
    expect(rolesInToken(refreshed.accessToken)).to.deep.equal([]);
    for (const token of [registered.body.bearerToken, signedIn.bearerToken, refreshed.accessToken]) {
      const r = await s.request('POST', adminOnly, { json: {}, token });
      expect([r.status, r.body.responseStatus.message]).to.deep.equal([403, 'Invalid Role']);
      expect((await s.request('POST', '/assignroles', { json: { userName: 'metauser', roles: ['Admin'] }, token })).status).to.equal(403);
    }
    const row = await s.knex('app_user').where({ user_name: 'metauser' }).first('id', 'meta');
    expect(JSON.parse(row.meta)).to.include({ roles: 'Admin', isAdmin: 'true' });
    expect(await s.knex('app_user_role').where({ user_id: row.id })).to.deep.equal([]);
    expect(({} as Record<string, unknown>)['roles']).to.equal(undefined);
  });
});
