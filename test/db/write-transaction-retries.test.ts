// A write transaction runs again when nothing of it was applied, and only then
// (design.md §10): the rows a reader finds afterwards show each attempt's fate.
import { expect } from 'chai';
import { writeTransaction } from '../../src/db/write-transaction.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';

const failure = (props: Record<string, unknown>) => Object.assign(new Error('driver'), props);

forEachDialect('write transactions: retries', (dialect) => {
  let t: TestDb;
  before(async () => { t = await createTestDb(dialect); });
  after(async () => { await t.drop(); });
  beforeEach(async () => { await t.knex('rate_limit_hit').del(); });

  const rows = async () => (await t.knex('rate_limit_hit').select('hits').orderBy('hits')).map((r: { hits: number }) => Number(r.hits));
  const row = (hits: number) => ({ bucket: 'retry-test', client_key: `k${hits}`, window_start: 0, hits });

  it('a deadlock victim (Galera: a certification conflict) runs again; its first attempt left nothing', async () => {
    let calls = 0;
    const value = await writeTransaction(t.db, async (trx) => {
      calls++;
      await trx('rate_limit_hit').insert(row(10 + calls));
      if (calls < 3) throw failure({ code: 'ER_LOCK_DEADLOCK', errno: 1213 });
      return 'done';
    });
    expect([value, calls, await rows()]).to.deep.equal(['done', 3, [13]]);
  });

  it('a connection lost before COMMIT runs again', async () => {
    let calls = 0;
    await writeTransaction(t.db, async (trx) => {
      calls++;
      await trx('rate_limit_hit').insert(row(20 + calls));
      if (calls === 1) throw failure({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
    });
    expect([calls, await rows()]).to.deep.equal([2, [22]]);
  });

  it('gives up after four attempts with the driver error, and nothing written', async () => {
    let calls = 0;
    const err = await writeTransaction(t.db, async (trx) => {
      calls++;
      await trx('rate_limit_hit').insert(row(30 + calls));
      throw failure({ code: 'ER_LOCK_DEADLOCK', errno: 1213 });
    }).catch((e: unknown) => e);
    expect([(err as { errno?: number }).errno, calls, await rows()]).to.deep.equal([1213, 4, []]);
  });

  it('a unique violation is answered at once, not run again', async () => {
    await t.knex('rate_limit_hit').insert(row(40));
    let calls = 0;
    const err = await writeTransaction(t.db, async (trx) => {
      calls++;
      await trx('rate_limit_hit').insert(row(40));
    }).catch((e: unknown) => e);
    expect([err instanceof Error, calls, await rows()]).to.deep.equal([true, 1, [40]]);
  });
});
