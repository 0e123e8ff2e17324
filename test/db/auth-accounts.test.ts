// The accounts module on a real database, without the HTTP edge: equal work for both
// sign-in failures, all-or-nothing user creation, refresh rotation and reuse, logout,
// roles reaching the next token, expiry on a moved clock, and the admin bootstrap.
import { expect } from 'chai';
import { pino } from 'pino';
import { createAccounts, type Accounts, type AccountsOptions } from '../../src/auth/accounts.js';
import { accountHandlers } from '../../src/handlers/accounts.js';
import { createScryptHasher, type PasswordHasher } from '../../src/auth/password-hasher.js';
import { loadConfig } from '../../src/config.js';
import type { Dialect } from '../../src/db/dialect.js';
import { ApiError } from '../../src/errors/api-error.js';
import type { Principal } from '../../src/auth/roles.js';
import { loadContract } from '../../src/http/contract.js';
import type { OperationRequest } from '../../src/http/operation.js';
import { requestValidators } from '../../src/http/validate-request.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';

const contract = await loadContract();
const registerErrors = requestValidators(contract.api, contract).get('Register')!;

const baseEnv = { JWT_SECRET: 'db-test-secret-at-least-32-bytes-long', SCRYPT_LOG_N: '4', RATE_LIMIT_REGISTER_PER_MIN: '0', RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '0' };

function countingHasher(): PasswordHasher & { verifies: number } {
  const inner = createScryptHasher({ logN: 4, r: 8, p: 1 });
  const h = { verifies: 0, hash: inner.hash, verify: (hash: string, pw: string) => { h.verifies++; return inner.verify(hash, pw); } };
  return h;
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  if (!(e instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(e)}`);
  return e;
}

async function failTrigger(db: TestDb, table: string): Promise<string> {
  const name = `fail_${table}`;
  await db.knex.raw(
    db.dialect === 'mysql'
      ? `CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'`
      : `CREATE TRIGGER ${name} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
  );
  return name;
}

forEachDialect('auth accounts module', (dialect: Dialect) => {
  let tdb: TestDb;
  let now: number;
  let accounts: Accounts;
  let hasher: ReturnType<typeof countingHasher>;
  const build = (env: Record<string, string> = {}, options: AccountsOptions = {}) =>
    createAccounts({ config: loadConfig({ ...baseEnv, ...env }), db: tdb.db, clock: () => new Date(now), logger: pino({ level: 'silent' }) }, { hasher, ...options });
  const req = (dto: Record<string, unknown>, principal: Principal | null = null): OperationRequest =>
    ({ operationId: 'test', dto, principal, bearer: () => principal, clientIp: '10.0.0.1', format: 'json', fieldErrors: [], nextPageUrl: () => undefined, announce: () => {} });
  const admin: Principal = { userId: '999', sessionId: 'admin-session', userName: 'root', roles: ['Admin'] };
  const signIn = (userName: string, password: string) => accountHandlers(accounts.context).Authenticate(req({ userName, password }));
  const refresh = (refreshToken: string) => accountHandlers(accounts.context).GetAccessToken(req({ refreshToken }));
  const count = async (table: string) => Number((await tdb.knex(table).count({ n: '*' }))[0]!['n']);

  beforeEach(async () => {
    now = Date.parse('2026-05-01T08:00:00.000Z');
    tdb = await createTestDb(dialect);
    hasher = countingHasher();
    accounts = build();
  });
  afterEach(async () => {
    await accounts.close();
    await tdb.drop();
  });

  it('answers an unknown user and a wrong password alike, each after one scrypt verification', async () => {
    await accountHandlers(accounts.context).Register(req({ userName: 'mario', password: 'correct-horse' }));
    hasher.verifies = 0;
    const unknown = await failure(signIn('luigi', 'correct-horse'));
    expect(hasher.verifies).to.equal(1);
    const wrong = await failure(signIn('mario', 'wrong-horse!'));
    expect(hasher.verifies).to.equal(2);
    for (const e of [unknown, wrong]) {
      expect([e.status, e.code, e.message, e.errors.length]).to.deep.equal([401, 'Unauthorized', 'Invalid UserName or Password', 0]);
      expect(e.headers).to.deep.equal({ 'WWW-Authenticate': 'Bearer' });
    }
    const ok = await signIn('MARIO', 'correct-horse');
    expect((ok.body as { userName: string }).userName).to.equal('mario');
  });

  it('leaves no user behind when the role insert fails', async () => {
    accounts = build({ DEFAULT_ROLES: 'ApiUser' });
    const trigger = await failTrigger(tdb, 'app_user_role');
    await accountHandlers(accounts.context).Register(req({ userName: 'mario', password: 'correct-horse' })).then(() => expect.fail('should fail'), () => undefined);
    expect(await count('app_user')).to.equal(0);
    await tdb.knex.raw(`DROP TRIGGER ${trigger}`);
    const r = await accountHandlers(accounts.context).Register(req({ userName: 'mario', password: 'correct-horse' }));
    expect(r.body).to.have.property('userId');
    // DEFAULT_ROLES are given at registration.
    expect(((await signIn('mario', 'correct-horse')).body as { roles: string[] }).roles).to.deep.equal(['ApiUser']);
  });

  it('leaves no user or role behind when the session insert fails', async () => {
    accounts = build({ DEFAULT_ROLES: 'ApiUser' });
    await failTrigger(tdb, 'auth_session');
    await accountHandlers(accounts.context).Register(req({ userName: 'mario', password: 'correct-horse', autoLogin: true })).then(() => expect.fail('should fail'), () => undefined);
    expect([await count('app_user'), await count('app_user_role'), await count('refresh_token')]).to.deep.equal([0, 0, 0]);
  });

  it('rotates refresh tokens, and a reused one revokes the whole session', async () => {
    await accountHandlers(accounts.context).Register(req({ userName: 'mario', password: 'correct-horse' }));
    const first = (await signIn('mario', 'correct-horse')).body as { refreshToken: string; sessionId: string };
    const second = (await refresh(first.refreshToken)).body as { refreshToken: string; accessToken: string };
    expect(second.refreshToken).to.not.equal(first.refreshToken);
    const third = (await refresh(second.refreshToken)).body as { refreshToken: string };
    const reuse = await failure(refresh(first.refreshToken));
    expect([reuse.status, reuse.headers['WWW-Authenticate']]).to.deep.equal([401, 'Bearer']);
    // The newest token died with its session.
    expect((await failure(refresh(third.refreshToken))).status).to.equal(401);
    const stored = await tdb.knex('refresh_token').select('token_hash');
    expect(stored.map((r) => r.token_hash)).to.not.include(first.refreshToken);
  });

  it('lets exactly one of two concurrent refreshes win', async () => {
    await accountHandlers(accounts.context).Register(req({ userName: 'mario', password: 'correct-horse' }));
    const { refreshToken } = (await signIn('mario', 'correct-horse')).body as { refreshToken: string };
    const results = await Promise.allSettled([refresh(refreshToken), refresh(refreshToken)]);
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
  });

  it('refuses unknown, malformed and expired refresh tokens', async () => {
    await accountHandlers(accounts.context).Register(req({ userName: 'mario', password: 'correct-horse' }));
    const { refreshToken } = (await signIn('mario', 'correct-horse')).body as { refreshToken: string };
    for (const bad of ['A'.repeat(43), 'short', `${refreshToken}x`]) expect((await failure(refresh(bad))).status).to.equal(401);
    expect((await failure(refresh(''))).errors[0]).to.include({ errorCode: 'NotEmpty', fieldName: 'RefreshToken' });
    now += 30 * 86400 * 1000 + 1;
    expect((await failure(refresh(refreshToken))).status).to.equal(401);
  });

  it('logout revokes the session, idempotently', async () => {
    await accountHandlers(accounts.context).Register(req({ userName: 'mario', password: 'correct-horse' }));
    const s = (await signIn('mario', 'correct-horse')).body as { refreshToken: string; bearerToken: string };
    const verified = accounts.verifyAccessToken(s.bearerToken);
    if (!verified.ok) throw verified.error;
    expect((await accountHandlers(accounts.context).Logout(req({}, verified.value))).body).to.deep.equal({});
    expect((await accountHandlers(accounts.context).Logout(req({}, verified.value))).body).to.deep.equal({});
    expect((await failure(refresh(s.refreshToken))).status).to.equal(401);
    expect((await failure(accountHandlers(accounts.context).Logout(req({})))).status).to.equal(401);
  });

  it('role changes reach the access token at the next refresh', async () => {
    await accountHandlers(accounts.context).Register(req({ email: 'Mario@Example.it', password: 'correct-horse' }));
    const s = (await signIn('mario@example.IT', 'correct-horse')).body as { refreshToken: string; bearerToken: string; roles: string[] };
    expect(s.roles).to.deep.equal([]);
    const assigned = await accountHandlers(accounts.context).AssignRoles(req({ userName: 'MARIO@example.it', roles: ['ApiUser', 'Admin', 'ApiUser'] }, admin));
    expect(assigned.body).to.deep.equal({ allRoles: ['Admin', 'ApiUser'], allPermissions: [] });
    const old = accounts.verifyAccessToken(s.bearerToken);
    expect(old.ok && old.value.roles).to.deep.equal([]);
    const next = (await refresh(s.refreshToken)).body as { accessToken: string; refreshToken: string };
    const fresh = accounts.verifyAccessToken(next.accessToken);
    expect(fresh.ok && fresh.value.roles).to.deep.equal(['Admin', 'ApiUser']);
    expect((await accountHandlers(accounts.context).UnAssignRoles(req({ userName: 'mario@example.it', roles: ['Admin'] }, admin))).body).to.deep.equal({ allRoles: ['ApiUser'], allPermissions: [] });
    const after = accounts.verifyAccessToken(((await refresh(next.refreshToken)).body as { accessToken: string }).accessToken);
    expect(after.ok && after.value.roles).to.deep.equal(['ApiUser']);
  });

  it('role changes: 404 for an unknown user, 400 naming Roles, 403 without Admin', async () => {
    const notFound = await failure(accountHandlers(accounts.context).AssignRoles(req({ userName: 'ghost', roles: ['ApiUser'] }, admin)));
    expect([notFound.status, notFound.code]).to.deep.equal([404, 'NotFound']);
    const bad = await failure(accountHandlers(accounts.context).AssignRoles(req({ userName: 'ghost', roles: ['Root'] }, admin)));
    expect([bad.status, bad.errors[0]?.errorCode, bad.errors[0]?.fieldName]).to.deep.equal([400, 'InvalidValue', 'Roles']);
    const user: Principal = { ...admin, roles: ['ApiUser'] };
    expect((await failure(accountHandlers(accounts.context).AssignRoles(req({ userName: 'ghost', roles: ['Admin'] }, user)))).status).to.equal(403);
  });

  it('stores meta, names and the case-insensitive keys with the user', async () => {
    await accountHandlers(accounts.context).Register(req({ userName: 'Mario.Rossi', email: 'M@Example.it', password: 'correct-horse', firstName: 'Mario', meta: { source: 'web' } }));
    const row = await tdb.knex('app_user').first();
    expect(row).to.include({ user_name: 'Mario.Rossi', user_name_key: 'mario.rossi', email: 'M@Example.it', email_key: 'm@example.it', first_name: 'Mario' });
    expect(JSON.parse(row.meta)).to.deep.equal({ source: 'web' });
    expect(row.password_hash).to.match(/^c2NyeXB0/);
  });

  it('bootstraps the admin once and never changes an existing user', async () => {
    accounts = build({ ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'first-password' });
    await accounts.bootstrapAdmin();
    const s = (await signIn('root', 'first-password')).body as { roles: string[] };
    expect(s.roles).to.deep.equal(['Admin']);
    accounts = build({ ADMIN_USERNAME: 'ROOT', ADMIN_PASSWORD: 'second-password' });
    await accounts.bootstrapAdmin();
    expect((await signIn('root', 'first-password')).body).to.have.property('bearerToken');
    expect(await count('app_user')).to.equal(1);
  });

  it('stops on an invalid admin user name or password, naming the variable and not the value', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ ADMIN_USERNAME: 'x', ADMIN_PASSWORD: 'long-enough-pw' }, /^ADMIN_USERNAME: /],
      [{ ADMIN_USERNAME: 'not an email@', ADMIN_PASSWORD: 'long-enough-pw' }, /^ADMIN_USERNAME: /],
      [{ ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'secret7' }, /^ADMIN_PASSWORD: /],
      [{ ADMIN_USERNAME: 'root' }, /^ADMIN_PASSWORD: /],
      [{ ADMIN_PASSWORD: 'long-enough-pw' }, /^ADMIN_USERNAME: /],
    ];
    for (const [env, message] of cases) {
      const e = await build(env).bootstrapAdmin().then(() => undefined, (err: Error) => err);
      expect(e?.message).to.match(message);
      expect(e?.message).to.not.include('secret7');
    }
    expect(await count('app_user')).to.equal(0);
  });

  it('rate-limits failed sign-ins per IP, even for the right password, with Retry-After', async () => {
    accounts = build({ RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '2' });
    await accountHandlers(accounts.context).Register(req({ userName: 'mario', password: 'correct-horse' }));
    for (let i = 0; i < 2; i++) expect((await failure(signIn('mario', 'wrong-horse!'))).status).to.equal(401);
    const limited = await failure(signIn('mario', 'correct-horse'));
    expect([limited.status, limited.code]).to.deep.equal([429, 'TooManyRequests']);
    expect(Number(limited.headers['Retry-After'])).to.be.within(1, 60);
    now += 60_000;
    expect((await signIn('mario', 'correct-horse')).body).to.have.property('bearerToken');
  });

  it('rate-limits Register per IP with Retry-After', async () => {
    accounts = build({ RATE_LIMIT_REGISTER_PER_MIN: '2' });
    await accountHandlers(accounts.context).Register(req({ userName: 'one', password: 'correct-horse' }));
    // An invalid request, with the contract's field errors the edge hands the handler.
    const invalid = { userName: 'x' };
    await failure(accountHandlers(accounts.context).Register({ ...req(invalid), fieldErrors: registerErrors(invalid) }));
    const limited = await failure(accountHandlers(accounts.context).Register(req({ userName: 'three', password: 'correct-horse' })));
    expect([limited.status, limited.headers['Retry-After']]).to.deep.equal([429, '60']);
  });
});
