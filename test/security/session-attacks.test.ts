// Attacks on sessions (issue 7): a replayed refresh token, two refreshes racing with one
// token, and the tokens of a user who has been deleted. Access tokens are stateless by
// design (design.md §4: roles are read from the token, logout does not revoke them), so a
// deleted user's access token lives out its ACCESS_TOKEN_TTL and nothing longer; every
// refresh and sign-in is refused at once.
import { expect } from 'chai';
import { clockToleranceSeconds } from '../../src/auth/access-tokens.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

forEachDialect('security: session attacks', (dialect) => {
  let s: TestServer;
  let now = Date.now();
  before(async () => {
    s = await startServer({ dialect, clock: () => new Date(now) });
  });
  after(() => s.close());

  const register = (userName: string) => s.request('POST', '/register', { json: { userName, password: 'correct-horse', autoLogin: true } });
  const signIn = (userName: string) => s.request('POST', '/auth/credentials', { json: { userName, password: 'correct-horse' } });
  const refresh = (refreshToken: string) => s.request('POST', '/access-token', { json: { refreshToken } });
  const logout = (token: string) => s.request('POST', '/auth/logout', { token });

  it('a replayed refresh token is refused and revokes the whole session', async () => {
    await register('replayed');
    const first = (await signIn('replayed')).body;
    const second = await refresh(first.refreshToken);
    expect(second.status).to.equal(200);
    const replay = await refresh(first.refreshToken);
    expect([replay.status, replay.body.responseStatus.errorCode]).to.deep.equal([401, 'Unauthorized']);
    // The thief's replay also burns the legitimate successor: the session is over.
    expect((await refresh(second.body.refreshToken)).status).to.equal(401);
    // Another session of the same user is untouched.
    expect((await refresh((await signIn('replayed')).body.refreshToken)).status).to.equal(200);
  });

  it('of two refreshes racing with one token, exactly one succeeds', async () => {
    await register('racer');
    const { refreshToken } = (await signIn('racer')).body;
    const answers = await Promise.all(Array.from({ length: 8 }, () => refresh(refreshToken)));
    expect(answers.filter((r) => r.status === 200)).to.have.length(1);
    expect(answers.filter((r) => r.status === 401)).to.have.length(7);
  });

  it("a deleted user's refresh tokens and password are refused at once", async () => {
    const registered = (await register('deleted')).body;
    const session = (await signIn('deleted')).body;
    await s.knex('app_user').where({ id: registered.userId }).delete();
    for (const token of [registered.refreshToken, session.refreshToken]) {
      const r = await refresh(token);
      expect([r.status, r.headers.get('www-authenticate')]).to.deep.equal([401, 'Bearer']);
    }
    expect((await signIn('deleted')).status).to.equal(401);
  });

  it("refuses a deleted user's refresh even where no foreign key removed the session", async () => {
    const registered = (await register('orphan')).body;
    // An operator deleting rows by hand with foreign keys switched off leaves the session behind.
    if (dialect === 'mysql') {
      await s.knex.transaction(async (trx) => {
        await trx.raw('SET FOREIGN_KEY_CHECKS = 0');
        await trx('app_user').where({ id: registered.userId }).delete();
        await trx.raw('SET FOREIGN_KEY_CHECKS = 1');
      });
    } else {
      // SQLite's pool is one connection, and the pragma cannot change inside a transaction.
      await s.knex.raw('PRAGMA foreign_keys = OFF');
      await s.knex('app_user').where({ id: registered.userId }).delete();
      await s.knex.raw('PRAGMA foreign_keys = ON');
    }
    const left = await s.knex('auth_session').where({ user_id: registered.userId }).count({ n: '*' });
    expect(Number(left[0]?.['n'])).to.equal(1);
    const r = await refresh(registered.refreshToken);
    expect(r.status).to.equal(401);
  });

  it("a deleted user's access token expires with ACCESS_TOKEN_TTL, as every access token does", async () => {
    const registered = (await register('ttl')).body;
    await s.knex('app_user').where({ id: registered.userId }).delete();
    // Stateless by design: still a valid signature and claims until exp (+ skew) ...
    expect((await logout(registered.bearerToken)).status).to.equal(200);
    now += (s.config.accessTokenTtl + clockToleranceSeconds + 1) * 1000;
    // ... and refused from then on.
    expect((await logout(registered.bearerToken)).status).to.equal(401);
  });
});
