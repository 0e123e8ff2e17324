// The users CLI: create reads the password from stdin (never argv), assign-roles and
// list work against either engine, and the created user can sign in.
import { PassThrough, Readable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { createAccounts } from '../../src/auth/accounts.js';
import { accountHandlers } from '../../src/handlers/accounts.js';
import { runUsersCli } from '../../src/cli/users.js';
import { loadConfig } from '../../src/config.js';
import type { Dialect } from '../../src/db/dialect.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { runCli } from '../support/run-cli.js';

const secret = 'cli-test-secret-at-least-32-bytes-long!';


forEachDialect('auth users CLI', (dialect: Dialect) => {
  let tdb: TestDb;
  let env: Record<string, string>;
  const inProcess = async (args: string[], stdin = '') => {
    const out = new PassThrough();
    const err = new PassThrough();
    let stdout = '';
    let stderr = '';
    out.on('data', (d) => (stdout += d));
    err.on('data', (d) => (stderr += d));
    const code = await runUsersCli(args, { stdin: Readable.from([stdin]), stdout: out, stderr: err, env });
    return { code, stdout, stderr };
  };
  const signIn = async (userName: string, password: string) => {
    const accounts = createAccounts({ config: loadConfig(env), db: tdb.db, clock: () => new Date(), logger: pino({ level: 'silent' }) });
    return (await accountHandlers(accounts.context).Authenticate({ operationId: 'Authenticate', dto: { userName, password }, principal: null, bearer: () => null, clientIp: '::1', format: 'json', fieldErrors: [], nextPageUrl: () => undefined, announce: () => {} })).body as { roles: string[] };
  };

  beforeEach(async () => {
    tdb = await createTestDb(dialect);
    env = { SCRYPT_LOG_N: '4', JWT_SECRET: secret, ...(tdb.databaseUrl ? { DATABASE_URL: tdb.databaseUrl } : { SQLITE_FILE: tdb.sqliteFile! }) };
  });
  afterEach(() => tdb.drop());

  it('create reads the password from stdin; the user can sign in with it', async () => {
    const r = await runCli('users', ['create', 'mario.rossi', '--email', 'mario@example.it', '--roles', 'Admin,ApiUser'], env, 'cli-password-1\n');
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^created user \d+\n$/);
    expect((await signIn('mario@example.it', 'cli-password-1')).roles).to.deep.equal(['Admin', 'ApiUser']);
  });

  it('refuses a short password, an invalid name, an unknown role and a taken name', async () => {
    expect((await inProcess(['create', 'mario'], 'short\n')).code).to.equal(2);
    expect((await inProcess(['create', 'x'], 'long-enough-pw\n')).code).to.equal(2);
    expect((await inProcess(['create', 'mario', '--roles', 'Root'], 'long-enough-pw\n')).code).to.equal(2);
    expect((await inProcess(['create', 'mario'], 'long-enough-pw\n')).code).to.equal(0);
    const taken = await inProcess(['create', 'MARIO'], 'long-enough-pw\n');
    expect([taken.code, taken.stderr]).to.deep.equal([1, 'UserName already exists\n']);
  });

  it('assign-roles and list, never printing a hash', async () => {
    await inProcess(['create', 'luigi@example.it'], 'long-enough-pw\n');
    const assigned = await inProcess(['assign-roles', 'LUIGI@example.it', 'ApiUser']);
    expect([assigned.code, assigned.stdout]).to.deep.equal([0, 'ApiUser\n']);
    const list = await inProcess(['list']);
    expect(list.stdout).to.match(/^\d+\t-\tluigi@example\.it\tApiUser\n$/);
    expect(list.stdout).not.to.include('c2NyeXB0');
    expect((await inProcess(['assign-roles', 'ghost', 'ApiUser'])).code).to.equal(1);
    expect((await inProcess(['frobnicate'])).code).to.equal(2);
  });
});
