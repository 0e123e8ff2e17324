// Several nodes starting at once on one empty database must all come up: migrations are
// serialised by a named lock on MySQL (src/db/migrate.ts), not refused by knex's lock.
import { expect } from 'chai';
import { connect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { dialects } from '../support/dialects.js';
import { createTestDb, type TestDb } from '../support/db.js';

const nodes = 6;

(dialects.includes('mysql') ? describe : describe.skip)('migrations: nodes starting together [mysql]', () => {
  let empty: TestDb;
  before(async () => { empty = await createTestDb('mysql', { migrate: false }); });
  after(() => empty.drop());

  it(`${nodes} nodes migrate one empty database at once, all succeed, each migration runs once`, async () => {
    const pools = Array.from({ length: nodes }, () => connect({ databaseUrl: empty.databaseUrl, poolMax: 2 }));
    try {
      const outcomes = await Promise.allSettled(pools.map((db) => migrate(db)));
      expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))).to.deep.equal(Array(nodes).fill('ok'));
    } finally {
      await Promise.all(pools.map((db) => db.destroy()));
    }
    const done = await empty.db('knex_migrations').select('name').orderBy('id');
    expect(done.map((r) => r.name)).to.have.length(new Set(done.map((r) => r.name)).size).and.length.greaterThan(0);
    const [lock] = await empty.db('knex_migrations_lock').select('is_locked');
    expect(Number(lock.is_locked)).to.equal(0);
  });
});
