// Sign-in, refresh, logout and roles over HTTP on the real app, with bearer tokens
// checked by the edge through the accounts module.
import { expect } from 'chai';
import type { Dialect } from '../../src/db/dialect.js';
import { freshWindowClock } from '../support/clock.js';
import { forEachDialect } from '../support/dialects.js';
import { expectError } from '../support/expect-error.js';
import { startServer, type TestServer } from '../support/server.js';

forEachDialect('auth sessions over HTTP', (dialect: Dialect) => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ dialect });
    await s.request('POST', '/register', { json: { userName: 'mario', firstName: 'Mario', lastName: 'Rossi', password: 'correct-horse' } });
  });
  after(() => s.close());
  const signIn = (userName: string, password: string) => s.request('POST', '/auth/credentials', { json: { userName, password } });
  const refresh = (refreshToken: string) => s.request('POST', '/access-token', { json: { refreshToken } });

  it('signs in and answers the documented body', async () => {
    const r = await signIn('Mario', 'correct-horse');
    expect(r.status).to.equal(200);
    expect(r.body).to.include({ userName: 'mario', displayName: 'Mario Rossi' });
    expect(r.body).to.have.keys('userId', 'sessionId', 'userName', 'displayName', 'bearerToken', 'refreshToken', 'roles');
  });

  it('gives an unknown user and a wrong password the same 401', async () => {
    const [unknown, wrong] = [await signIn('luigi', 'correct-horse'), await signIn('mario', 'wrong-horse')];
    for (const r of [unknown, wrong]) {
      expect(r.status).to.equal(401);
      expect(r.headers.get('www-authenticate')).to.equal('Bearer');
    }
    expect(unknown.text).to.equal(wrong.text);
    expect(unknown.body.responseStatus.message).to.equal('Invalid UserName or Password');
  });

  it('rotates the refresh token and revokes the session when a spent one comes back', async () => {
    const first = (await signIn('mario', 'correct-horse')).body;
    const second = await refresh(first.refreshToken);
    expect(second.status).to.equal(200);
    expect(second.body).to.have.keys('accessToken', 'refreshToken');
    const replay = await refresh(first.refreshToken);
    expect([replay.status, replay.headers.get('www-authenticate')]).to.deep.equal([401, 'Bearer']);
    expect((await refresh(second.body.refreshToken)).status).to.equal(401);
    expect((await refresh('not-a-token')).status).to.equal(401);
  });

  it('answers 401 for a malformed refresh token whatever its length, like an unknown one', async () => {
    for (const refreshToken of ['x', 'x'.repeat(257), 'x'.repeat(100_000), '']) {
      const r = await s.request('POST', '/access-token', { json: { refreshToken } });
      if (refreshToken === '') expectError(r, 400, 'NotEmpty', 'RefreshToken');
      else expectError(r, 401, 'Unauthorized');
    }
  });

  it('logout closes the session, answers {} again, and needs a token', async () => {
    const session = (await signIn('mario', 'correct-horse')).body;
    for (let i = 0; i < 2; i++) {
      const r = await s.request('POST', '/auth/logout', { token: session.bearerToken });
      expect([r.status, r.body]).to.deep.equal([200, {}]);
    }
    expect((await refresh(session.refreshToken)).status).to.equal(401);
    const anonymous = await s.request('POST', '/auth/logout');
    expect([anonymous.status, anonymous.headers.get('www-authenticate')]).to.deep.equal([401, 'Bearer']);
  });

  it('refuses a tampered bearer token', async () => {
    const { bearerToken } = (await signIn('mario', 'correct-horse')).body;
    const [h, p, sig] = bearerToken.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), roles: ['Admin'] })).toString('base64url');
    const r = await s.request('POST', '/assignroles', { json: { userName: 'mario', roles: ['Admin'] }, token: `${h}.${forged}.${sig}` });
    expect(r.status).to.equal(401);
  });

  it('assigns roles (Admin only) and the change reaches the next refreshed token', async () => {
    const session = (await signIn('mario', 'correct-horse')).body;
    const asUser = await s.request('POST', '/assignroles', { json: { userName: 'mario', roles: ['Admin'] }, token: session.bearerToken });
    expect([asUser.status, asUser.body.responseStatus.message]).to.deep.equal([403, 'Invalid Role']);
    const admin = await s.tokenFor(['Admin']);
    const assigned = await s.request('POST', '/assignroles', { json: { userName: 'MARIO', roles: ['ApiUser'] }, token: admin });
    expect([assigned.status, assigned.body]).to.deep.equal([200, { allRoles: ['ApiUser'], allPermissions: [] }]);
    const next = (await refresh(session.refreshToken)).body;
    const roles = JSON.parse(Buffer.from(next.accessToken.split('.')[1], 'base64url').toString()).roles;
    expect(roles).to.deep.equal(['ApiUser']);
    const removed = await s.request('POST', '/unassignroles', { json: { userName: 'mario', roles: ['ApiUser'] }, token: admin });
    expect(removed.body).to.deep.equal({ allRoles: [], allPermissions: [] });
  });

  it('answers 404 for an unknown user and 400 naming Roles for an unknown role', async () => {
    const admin = await s.tokenFor(['Admin']);
    const missing = await s.request('POST', '/assignroles', { json: { userName: 'ghost', roles: ['ApiUser'] }, token: admin });
    expect([missing.status, missing.body.responseStatus.errorCode]).to.deep.equal([404, 'NotFound']);
    const bad = await s.request('POST', '/assignroles', { json: { userName: 'mario', roles: ['Root'] }, token: admin });
    expect(bad.status).to.equal(400);
    expect(bad.body.responseStatus.errors[0]).to.include({ errorCode: 'InvalidValue', fieldName: 'Roles' });
  });
});

forEachDialect('auth sign-in limits over HTTP', (dialect: Dialect) => {
  it('answers 429 with Retry-After past RATE_LIMIT_LOGIN_FAILURES_PER_MIN, even for the right password', async () => {
    const s = await startServer({ dialect, env: { RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '3' }, clock: freshWindowClock() });
    try {
      await s.request('POST', '/register', { json: { userName: 'mario', password: 'correct-horse' } });
      const attempt = (password: string) => s.request('POST', '/auth/credentials', { json: { userName: 'mario', password } });
      for (let i = 0; i < 3; i++) expect((await attempt('wrong-horse')).status).to.equal(401);
      const limited = await attempt('correct-horse');
      expect([limited.status, limited.body.responseStatus.errorCode]).to.deep.equal([429, 'TooManyRequests']);
      expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60);
    } finally {
      await s.close();
    }
  });

  it('creates the ADMIN_USERNAME user at start-up, who can then assign roles', async () => {
    const s = await startServer({ dialect, env: { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'admin-password' } });
    try {
      const admin = await s.request('POST', '/auth/credentials', { json: { userName: 'root', password: 'admin-password' } });
      expect(admin.body.roles).to.deep.equal(['Admin']);
      await s.request('POST', '/register', { json: { userName: 'mario', password: 'correct-horse' } });
      const r = await s.request('POST', '/assignroles', { json: { userName: 'mario', roles: ['ApiUser'] }, token: admin.body.bearerToken });
      expect([r.status, r.body]).to.deep.equal([200, { allRoles: ['ApiUser'], allPermissions: [] }]);
    } finally {
      await s.close();
    }
  });
});
