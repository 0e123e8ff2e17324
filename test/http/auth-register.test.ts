// Register over HTTP on the real app: the 200 body, case-insensitive 409s, the race of
// 20 registrations of one name, sign-in after every 200, rate limit and hash bound.
import { expect } from 'chai';
import fs from 'node:fs';
import fc from 'fast-check';
import type { Dialect } from '../../src/db/dialect.js';
import { freshWindowClock } from '../support/clock.js';
import { forEachDialect } from '../support/dialects.js';
import { requireOfMachine } from '../support/machine.js';
import { assertProperty } from '../support/property-seed.js';
import { startServer, type TestServer } from '../support/server.js';

forEachDialect('auth Register over HTTP', (dialect: Dialect) => {
  let s: TestServer;
  before(async () => { s = await startServer({ dialect }); });
  after(() => s.close());
  const register = (json: Record<string, unknown>, path = '/register') => s.request('POST', path, { json });

  it('answers userId, userName and referrerUrl; a session and tokens only with autoLogin', async () => {
    const plain = await register({ userName: 'Anna.Bianchi', password: 'correct-horse', errorView: '/err' }, '/register?continue=/benvenuto');
    expect(plain.status).to.equal(200);
    expect(plain.body).to.deep.equal({ userId: plain.body.userId, userName: 'Anna.Bianchi', referrerUrl: '/benvenuto' });
    expect(plain.body.userId).to.be.a('string');
    const sessions = await s.knex('auth_session').count({ n: '*' });
    expect(Number(sessions[0]!['n'])).to.equal(0);

    const auto = await s.request('PUT', '/register', { json: { userName: 'carlo', password: 'correct-horse', autoLogin: true } });
    expect(auto.status).to.equal(200);
    expect(auto.body).to.have.keys('userId', 'userName', 'sessionId', 'bearerToken', 'refreshToken');
  });

  it('omits userName for an e-mail-only user, who then signs in with the e-mail', async () => {
    const r = await s.request('POST', '/register', { form: { email: 'Solo@Example.it', password: 'correct-horse' } });
    expect(r.status).to.equal(200);
    expect(r.body).to.have.keys('userId');
    expect((await s.request('POST', '/auth/credentials', { json: { userName: 'solo@example.it', password: 'correct-horse' } })).status).to.equal(200);
  });

  const conflicts: Array<[string, Record<string, unknown>, string]> = [
    ['the user name in another case', { userName: 'ANNA.BIANCHI', password: 'correct-horse' }, 'UserName'],
    ['the e-mail in another case', { userName: 'someone', email: 'SOLO@example.IT', password: 'correct-horse' }, 'Email'],
  ];
  for (const [name, json, field] of conflicts) {
    it(`answers 409 AlreadyExists naming ${field} for ${name}`, async () => {
      const r = await register(json);
      expect(r.status).to.equal(409);
      expect(r.body.responseStatus.errorCode).to.equal('AlreadyExists');
      expect(r.body.responseStatus.errors).to.deep.equal([{ errorCode: 'AlreadyExists', fieldName: field, message: `${field} already exists` }]);
    });
  }

  it('lists every broken rule at once, first one on top', async () => {
    const r = await register({ userName: 'x', email: 'bad', password: 'short', confirmPassword: 'other' }, '/register?continue=https://evil.example');
    expect(r.status).to.equal(400);
    expect(r.body.responseStatus.errorCode).to.equal('InvalidUserName');
    expect(r.body.responseStatus.errors.map((e: { fieldName: string }) => e.fieldName)).to.deep.equal(['UserName', 'Email', 'Password', 'ConfirmPassword', 'Continue']);
    expect(r.text).not.to.include('short');
  });

  // ServiceStack reports every broken rule of ConfirmPassword: its length and the match.
  const confirmations: Array<[string, Record<string, unknown>, Array<[string, string]>]> = [
    ['over 256 with a valid body', { userName: 'conferma', password: 'correct-horse', confirmPassword: 'c'.repeat(257) }, [['Length', 'ConfirmPassword'], ['PasswordsShouldMatch', 'ConfirmPassword']]],
    ['sent alone', { confirmPassword: 'correct-horse' }, [['NotEmpty', 'UserName'], ['NotEmpty', 'Password'], ['PasswordsShouldMatch', 'ConfirmPassword']]],
    ['over 256 and matching a password over 256', { userName: 'conferma', password: 'p'.repeat(257), confirmPassword: 'p'.repeat(257) }, [['Length', 'Password'], ['Length', 'ConfirmPassword']]],
  ];
  for (const [name, json, want] of confirmations) {
    it(`answers every broken rule of a confirmPassword ${name}`, async () => {
      const r = await register(json);
      expect(r.status).to.equal(400);
      expect(r.body.responseStatus.errorCode).to.equal(want[0]![0]);
      expect(r.body.responseStatus.errors.map((e: { errorCode: string; fieldName: string }) => [e.errorCode, e.fieldName])).to.deep.equal(want);
    });
  }

  it('reads meta from the query string as meta[key]=value pairs (what generated clients send) or JSON text', async () => {
    const pairs = await s.request('POST', '/register?meta[source]=web&meta[lang]=it', { json: { userName: `meta.pairs.${dialect}`, password: 'correct-horse-1' } });
    const text = await s.request('POST', `/register?meta=${encodeURIComponent('{"source":"app"}')}`, { json: { userName: `meta.text.${dialect}`, password: 'correct-horse-1' } });
    expect([pairs.status, text.status]).to.deep.equal([200, 200]);
    const metaOf = async (userName: string) => JSON.parse((await s.knex('app_user').where({ user_name: userName }).first('meta')).meta);
    expect(await metaOf(`meta.pairs.${dialect}`)).to.deep.equal({ source: 'web', lang: 'it' });
    expect(await metaOf(`meta.text.${dialect}`)).to.deep.equal({ source: 'app' });
  });

  it('refuses a password in the query string', async () => {
    const r = await s.request('POST', '/register?password=correct-horse', { json: { userName: 'querypw' } });
    expect(r.status).to.equal(400);
    expect(r.body.responseStatus.errors.some((e: { fieldName: string }) => e.fieldName === 'Password')).to.equal(true);
  });

  it('of 20 concurrent registrations of one name, exactly one succeeds and 19 get 409', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => register({ userName: i % 2 ? 'Racer' : 'racer', password: `racer-password-${i}` })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((x) => x === 200)).to.have.length(1);
    expect(statuses.filter((x) => x === 409)).to.have.length(19);
    const winner = results.findIndex((r) => r.status === 200);
    const signIn = await s.request('POST', '/auth/credentials', { json: { userName: 'RACER', password: `racer-password-${winner}` } });
    expect(signIn.status).to.equal(200);
  });

  it('every 200 from Register means the user can sign in with what was sent', async () => {
    const userName = fc.stringMatching(/^[A-Za-z0-9]([._-]?[A-Za-z0-9]){2,17}$/);
    const password = fc.string({ unit: 'grapheme', minLength: 8, maxLength: 40 }).filter((p) => [...p].length >= 8 && [...p].length <= 256);
    await assertProperty(
      fc.asyncProperty(userName, password, fc.boolean(), async (name, pw, byEmail) => {
        const email = `${name.replace(/[._-]/g, '')}@example.it`;
        const r = await register({ ...(byEmail ? { email } : { userName: name }), password: pw });
        if (r.status !== 200) return r.status === 409;
        const login = await s.request('POST', '/auth/credentials', { json: { userName: byEmail ? email.toUpperCase() : name.toLowerCase(), password: pw } });
        return login.status === 200;
      }),
      { numRuns: 30 },
    );
  });

  it('never writes a password or a hash to a response or a log line', async () => {
    const pw = 'very-distinct-password-42';
    const r = await register({ userName: 'logcheck', password: pw, confirmPassword: pw, autoLogin: true });
    const bad = await s.request('POST', '/auth/credentials', { json: { userName: 'logcheck', password: `${pw}!` } });
    const logs = s.logs().join('\n');
    for (const text of [r.text, bad.text, logs]) {
      expect(text).not.to.include(pw);
      expect(text).not.to.include('c2NyeXB0');
    }
  });
});

forEachDialect('auth Register limits over HTTP', (dialect: Dialect) => {
  it('answers 429 with Retry-After past RATE_LIMIT_REGISTER_PER_MIN', async () => {
    const s = await startServer({ dialect, env: { RATE_LIMIT_REGISTER_PER_MIN: '2' }, clock: freshWindowClock() });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push(await s.request('POST', '/register', { json: { userName: `rl${i}xx`, password: 'correct-horse' } }));
      expect(statuses.map((r) => r.status)).to.deep.equal([200, 200, 429]);
      expect(statuses[2]!.body.responseStatus.errorCode).to.equal('TooManyRequests');
      expect(Number(statuses[2]!.headers.get('retry-after'))).to.be.within(1, 60);
    } finally {
      await s.close();
    }
  });

  it('answers 503 with Retry-After when the hash queue is full, and 200 to those admitted', async () => {
    const s = await startServer({ dialect, env: { HASH_CONCURRENCY: '1', HASH_QUEUE: '1', SCRYPT_LOG_N: '13' } });
    try {
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => s.request('POST', '/register', { json: { userName: `busy${i}`, password: 'correct-horse' } })));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((x) => x === 200).length).to.be.at.least(2);
      const refused = results.filter((r) => r.status === 503);
      expect(refused.length).to.be.at.least(1);
      expect(refused[0]!.body.responseStatus.errorCode).to.equal('ServiceUnavailable');
      expect(refused[0]!.headers.get('retry-after')).to.equal('1');
      expect(statuses.every((x) => x === 200 || x === 503)).to.equal(true);
    } finally {
      await s.close();
    }
  });

  it('answers 503 when the hashing process dies mid-hash, writes no user, logs why, and the next registration gets a new one', async function () {
    requireOfMachine(fs.existsSync(`/proc/${process.pid}/task/${process.pid}/children`), 'finding the hashing process needs /proc/PID/task/TID/children (Linux)');
    const s = await startServer({ dialect, env: { SCRYPT_LOG_N: '16' } });
    // Other servers of this process have hashing children of their own: this server's is the new one.
    const hashingChildren = () =>
      fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
        .filter((pid) => { try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('hash-process.js'); } catch { return false; } });
    const others = new Set(hashingChildren());
    const hashingChild = () => hashingChildren().find((pid) => !others.has(pid));
    try {
      const answer = s.request('POST', '/register', { json: { userName: 'cut.short', password: 'correct-horse' } });
      let child: number | undefined;
      for (let i = 0; i < 100 && !(child = hashingChild()); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 100));
      process.kill(child!, 'SIGKILL');
      const r = await answer;
      expect(r.status).to.equal(503);
      expect(r.body.responseStatus.errorCode).to.equal('ServiceUnavailable');
      expect(r.headers.get('retry-after')).to.equal('1');
      expect(await s.knex('app_user').where({ user_name: 'cut.short' }).first()).to.equal(undefined);
      expect(s.logs().map((l) => JSON.parse(l)).filter((l) => l.event === 'auth.hasher-lost').map((l) => l.msg)).to.deep.equal([
        'password hashing process exited (SIGKILL) with 1 hashes in flight',
      ]);
      const again = await s.request('POST', '/register', { json: { userName: 'cut.short', password: 'correct-horse' } });
      expect(again.status).to.equal(200);
      expect(hashingChild()).to.be.a('number').and.not.equal(child);
    } finally {
      await s.close();
    }
  });

  it('with the default hash bound, 20 concurrent registrations are all 200 or 409', async () => {
    const s = await startServer({ dialect, env: { SCRYPT_LOG_N: '12' } });
    try {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => s.request('POST', '/register', { json: { userName: `crowd${i % 5}`, password: 'correct-horse' } })));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((x) => x === 200)).to.have.length(5);
      expect(statuses.filter((x) => x === 409)).to.have.length(15);
    } finally {
      await s.close();
    }
  });
});
