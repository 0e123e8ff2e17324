// Several nodes starting at once on one empty database must all come up: migrations are
// serialised by a lease on MySQL (src/db/named-lock.ts), not refused by knex's lock.
// A node restarting on a database that holds every migration only reads it.
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { connect, disconnect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import * as replicaHeartbeat from '../../src/db/migrations/006-replica-heartbeat.js';
import { withNamedLock } from '../../src/db/named-lock.js';
import { dialects, forEachDialect } from '../support/dialects.js';
import { createTestDb, type TestDb } from '../support/db.js';

const nodes = 6;

// Declared only when the run covers MySQL (DIALECTS): it has no SQLite counterpart.
if (dialects.includes('mysql')) describe('migrations: nodes starting together [mysql]', () => {
  let empty: TestDb;
  before(async () => { empty = await createTestDb('mysql', { migrate: false }); });
  after(() => empty.drop());

  it(`${nodes} nodes migrate one empty database at once, all succeed, each migration runs once`, async () => {
    const pools = Array.from({ length: nodes }, () => connect({ databaseUrl: empty.databaseUrl, poolMax: 2 }));
    try {
      const outcomes = await Promise.allSettled(pools.map((db) => migrate(db)));
      expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))).to.deep.equal(Array(nodes).fill('ok'));
    } finally {
      await Promise.all(pools.map((db) => disconnect(db)));
    }
    const done = await empty.knex('knex_migrations').select('name').orderBy('id');
    expect(done.map((r) => r.name)).to.have.length(new Set(done.map((r) => r.name)).size).and.length.greaterThan(0);
    const [lock] = await empty.knex('knex_migrations_lock').select('is_locked');
    expect(Number(lock.is_locked)).to.equal(0);
  });
});

/** Resolves 'started', or 'waited' when `work` is still running after `ms`. */
function within(ms: number, work: Promise<void>): Promise<'started' | 'waited'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'waited'>((resolve) => { timer = setTimeout(() => resolve('waited'), ms); });
  return Promise.race([work.then(() => 'started' as const), late]).finally(() => clearTimeout(timer));
}

forEachDialect('migrations: a node restarting on a current database', (dialect) => {
  let current: TestDb;
  before(async () => { current = await createTestDb(dialect); });
  after(() => current.drop());

  it('starts at once while another holds the lock a migration would take, and changes no row', async () => {
    const before = await current.knex('knex_migrations').select('id', 'name', 'migration_time').orderBy('id');
    const node = connect({ databaseUrl: current.databaseUrl, sqliteFile: current.sqliteFile, poolMax: 2 });
    // MySQL: the lease that serialises migrations, held by another node until the end;
    // SQLite: the file's write lock, which knex's own lock row needs.
    const holder = dialect === 'mysql' ? connect({ databaseUrl: current.databaseUrl, poolMax: 2 }) : undefined;
    let release = () => {};
    let held: Promise<unknown> = Promise.resolve();
    const sqliteWriter = dialect === 'sqlite' ? new Database(current.sqliteFile!) : undefined;
    let outcome: 'started' | 'waited';
    let run: Promise<void> = Promise.resolve();
    try {
      if (holder) {
        let taken = () => {};
        const took = new Promise<void>((r) => { taken = r; });
        held = withNamedLock(holder, 'impianti_api_migrate', 0, () => new Promise<void>((r) => { release = r; taken(); }));
        await Promise.race([took, held.then(() => { throw new Error('the lease was not taken'); })]);
      }
      sqliteWriter?.exec('BEGIN IMMEDIATE');
      run = migrate(node);
      outcome = await within(2000, run);
    } finally {
      sqliteWriter?.close();
      release();
      await held;
      if (holder) await disconnect(holder);
      await run.catch(() => undefined);
      await disconnect(node);
    }
    expect(outcome).to.equal('started');
    expect(await current.knex('knex_migrations').select('id', 'name', 'migration_time').orderBy('id')).to.deep.equal(before);
  });

  it('still migrates a database that lacks a migration', async () => {
    await replicaHeartbeat.down(current.knex);
    await current.knex('knex_migrations').where({ name: replicaHeartbeat.name }).delete();
    await migrate(current.db);
    expect(await current.knex('knex_migrations').where({ name: replicaHeartbeat.name }).select('name')).to.have.length(1);
    expect(await current.knex('replica_heartbeat').select('id')).to.deep.equal([{ id: 1 }]);
  });
});
