// A query of several statements runs them on one pooled connection (design.md §8,
// src/db/select.ts, selectTogether): on MySQL the page, the count and the aggregates of one
// request go to the same connection, which goes back to the pool only once every statement
// asked of it has settled. On SQLite they read on the read path's own connection.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { connect } from '../../src/db/connect.js';
import { firstCell, selectTable, selectTogether } from '../../src/db/select.js';
import { runQuery } from '../../src/query/run-query.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { sr, testContext } from '../support/query-catalog.js';

interface Announced {
  readonly sql: string;
  readonly __knexUid?: string;
}

const used = (db: Knex): number => (db.client as { pool: { numUsed(): number } }).pool.numUsed();

forEachDialect('a query on one connection', (dialect) => {
  let t: TestDb;
  let db: Knex;
  const announced: Announced[] = [];
  before(async () => {
    t = await createTestDb(dialect);
    await t.db('soggetto_recapito').insert(Array.from({ length: 30 }, (_, i) => ({ id: i + 1, soggetto_id: 1 + (i % 3), tipo_recapito_id: 1, recapito: `r${i + 1}`, codice_esterno: null })));
    // MySQL: a pool of several connections, so that statements could have gone to different ones.
    db = dialect === 'mysql' ? connect({ databaseUrl: t.databaseUrl!, poolMax: 4, statementTimeoutMs: 5000 }) : t.db;
    db.on('query', (q: Announced) => announced.push(q));
  });
  after(async () => {
    if (db !== t.db) await db.destroy();
    await t.drop();
  });

  it('answers the page, the total and the aggregates of one request, all on one connection', async () => {
    announced.length = 0;
    const r = await runQuery(db, sr, { soggettoId: 2, take: 3, include: 'Total, COUNT(*) Recapiti, MAX(Id) Ultimo, MIN(Recapito) Primo' }, testContext());
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.response.total).to.equal(10);
    expect(r.value.response.results.map((x) => x.id)).to.deep.equal([2, 5, 8]);
    expect(r.value.response.meta).to.deep.include({ Recapiti: '10', Ultimo: '29' });
    expect(announced.length).to.be.at.least(2);
    if (dialect === 'mysql') {
      const connections = new Set(announced.map((q) => q.__knexUid));
      expect(connections.size, JSON.stringify(announced.map((q) => [q.__knexUid, q.sql]))).to.equal(1);
      expect([...connections][0]).to.be.a('string');
    }
    expect(used(db)).to.equal(0);
  });

  it('keeps the connection until a statement queued behind a failed one has settled', async function () {
    if (dialect !== 'mysql') this.skip();
    let settled = false;
    const err = await selectTogether(db, 5000, (select) => {
      const fails = select('select no_such_column from soggetto_recapito', []);
      void select('select SLEEP(0.3) AS s', []).then(() => (settled = true));
      return fails;
    }).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
    // The failed statement has answered; the sleep queued behind it is still the connection's.
    expect(settled).to.equal(false);
    expect(used(db)).to.equal(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(settled).to.equal(true);
    expect(used(db)).to.equal(0);
    expect(Number(firstCell(await selectTable(db, 'select COUNT(*) AS n from soggetto_recapito', []), 'n'))).to.equal(30);
  });

  it("times each statement from when it is sent, not from when it was asked behind the others", async function () {
    if (dialect !== 'mysql') this.skip();
    this.timeout(10000);
    // A limit of 1 s gives each statement 2 s (the grace second): three sleeps of 0.8 s take
    // 2.4 s together, and each is within its own limit.
    const sleeps = await selectTogether(db, 1000, (select) => Promise.all([0, 1, 2].map((i) => select(`select SLEEP(0.8) AS s${i}`, []))));
    expect(sleeps.map((t) => t.columns)).to.deep.equal([['s0'], ['s1'], ['s2']]);
    expect(used(db)).to.equal(0);
  });

  it('gives the connection back when the work throws before asking anything', async () => {
    const err = await selectTogether(db, 5000, () => {
      throw new Error('refused');
    }).then(() => undefined, (e: unknown) => e);
    expect((err as Error).message).to.equal('refused');
    expect(used(db)).to.equal(0);
  });
});
