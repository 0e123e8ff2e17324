// Rate limits across nodes (design.md §12): on MySQL two accounts modules over one database,
// as two nodes are, share RATE_LIMIT_REGISTER_PER_MIN, and a restarted node keeps the count;
// the embedded SQLite file (one node by nature) counts in memory per process.
import { expect } from 'chai';
import { pino } from 'pino';
import { createAccounts } from '../../src/auth/accounts.js';
import { loadConfig } from '../../src/config.js';
import { connect, disconnect } from '../../src/db/connect.js';
import type { Dialect } from '../../src/db/dialect.js';
import { ApiError } from '../../src/errors/api-error.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';

const env = { JWT_SECRET: 'db-test-secret-at-least-32-bytes-long', SCRYPT_LOG_N: '4', RATE_LIMIT_REGISTER_PER_MIN: '3', RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '0' };

forEachDialect('rate limits shared by nodes', (dialect: Dialect) => {
  let tdb: TestDb;
  let now = Date.UTC(2026, 10, 25, 10, 0, 5);
  before(async () => { tdb = await createTestDb(dialect); });
  after(() => tdb.drop());
  const node = () => createAccounts({ config: loadConfig(env), db: tdb.db, clock: () => new Date(now), logger: pino({ level: 'silent' }) }).context.registerLimiter;

  it(dialect === 'mysql' ? 'a client spreading registrations over two nodes gets the limit once, then a Retry-After; a restart keeps the count' : 'each process counts for itself', async () => {
    const [a, b] = [node(), node()];
    const decisions = [await a.hit('10.0.0.7'), await b.hit('10.0.0.7'), await a.hit('10.0.0.7'), await b.hit('10.0.0.7')];
    if (dialect === 'sqlite') {
      expect(decisions.map((d) => d.allowed)).to.deep.equal([true, true, true, true]);
      return;
    }
    expect(decisions.map((d) => d.allowed)).to.deep.equal([true, true, true, false]);
    expect(decisions[3]!.retryAfterSeconds).to.equal(55);
    expect((await node().check('10.0.0.7')).allowed, 'a restarted node keeps the count').to.equal(false);
    expect((await node().check('10.0.0.8')).allowed, 'another client has its own count').to.equal(true);
    now += 60_000;
    expect((await b.hit('10.0.0.7')).allowed, 'the next window starts afresh').to.equal(true);
    const rows = await tdb.knex('rate_limit_hit').select('window_start');
    expect(rows.every((r: { window_start: number | string }) => Number(r.window_start) >= Math.floor(now / 60_000) * 60_000), 'old windows are cleared').to.equal(true);
  });

  if (dialect === 'mysql') {
    it('fails closed when the database is unreachable: a 503, never a free pass', async () => {
      // Nothing listens on port 1: every connection is refused, as with a server that is down.
      const gone = connect({ databaseUrl: 'mysql://root@127.0.0.1:1/impianti' });
      try {
        const limiter = createAccounts({ config: loadConfig(env), db: gone, clock: () => new Date(now), logger: pino({ level: 'silent' }) }).context.registerLimiter;
        const error = await limiter.hit('10.0.0.9').then(() => undefined, (e: unknown) => e);
        expect(error).to.be.instanceOf(ApiError).and.to.include({ status: 503 });
      } finally {
        await disconnect(gone);
      }
    });
  }
});
