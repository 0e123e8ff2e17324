// On SQLite the read path has a read-only connection of its own (src/db/connect.ts,
// sqliteReaderOf): the pool's single connection stays the writers'. A query therefore
// never waits behind a write transaction and never sees one half-done.
import { expect } from 'chai';
import { connect, sqliteReaderOf, disconnect } from '../../src/db/connect.js';
import { selectRows } from '../../src/db/reads/select.js';
import { createTestDb, type TestDb } from '../support/db.js';

const ids = async (t: TestDb) => (await selectRows<{ id: number }>(t.db, 'select id from soggetto_recapito order by id', [])).map((r) => r.id);
const row = (id: number) => ({ id, soggetto_id: 1, tipo_recapito_id: 1, recapito: `r${id}` });

describe('the SQLite read connection', () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await createTestDb('sqlite');
    await t.knex('soggetto_recapito').insert(row(1));
  });
  afterEach(async () => t.drop());

  it('answers while a write transaction holds the pool, with what was committed before it', async () => {
    const trx = await t.knex.transaction();
    try {
      await trx('soggetto_recapito').insert(row(2));
      // Through the pool this would wait for the transaction: the pool's one connection is lent to it.
      const during = await Promise.race([ids(t), new Promise((resolve) => setTimeout(() => resolve('waited'), 1000))]);
      expect(during).to.deep.equal([1]);
      await trx.commit();
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
    expect(await ids(t)).to.deep.equal([1, 2]);
  });

  it('does not see a transaction that was rolled back', async () => {
    const trx = await t.knex.transaction();
    await trx('soggetto_recapito').insert(row(3));
    await trx.rollback();
    expect(await ids(t)).to.deep.equal([1]);
  });

  it('is read-only: a write through it is refused by SQLite itself', async () => {
    await ids(t);
    expect(() => sqliteReaderOf(t.db)!.prepare('delete from soggetto_recapito').run()).to.throw(/readonly/i);
    expect(await ids(t)).to.deep.equal([1]);
  });

  it('closes when the pool is destroyed', async () => {
    await ids(t);
    const reader = sqliteReaderOf(t.db)!;
    expect(reader.open).to.equal(true);
    await t.drop();
    expect(reader.open).to.equal(false);
    t = await createTestDb('sqlite');
  });

  it('is not used for an in-memory database, which a second connection could not see', async () => {
    const memory = connect({ sqliteFile: ':memory:' });
    try {
      expect(sqliteReaderOf(memory)).to.equal(undefined);
      await memory.knex.schema.createTable('x', (table) => table.integer('id'));
      await memory.knex('x').insert({ id: 7 });
      expect(await selectRows(memory, 'select id from x', [])).to.deep.equal([{ id: 7 }]);
    } finally {
      await disconnect(memory);
    }
  });
});
