// A query of several statements reads them together (design.md §8, src/db/reads/select.ts,
// selectTogether). On MySQL they go to one pooled connection, as the server itself reports
// (CONNECTION_ID()), which goes back to the pool only once every statement asked of it has
// settled. On a SQLite file they read in one read transaction: a write committed between
// two of them is seen by neither.
import { expect } from 'chai';
import { connect, disconnect } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { firstCell, readPoolFigures, selectTable, selectTogether } from '../../src/db/reads/select.js';
import { runQuery } from '../../src/query/run-query.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { sr, testContext } from '../support/query-catalog.js';

const used = (db: Database): number => readPoolFigures(db)?.used ?? 0;
const count = async (select: (sql: string, bindings: readonly unknown[]) => Promise<unknown>): Promise<number> =>
  Number(firstCell((await select('select COUNT(*) AS n from soggetto_recapito', [])) as never, 'n'));

forEachDialect('a query on one connection', (dialect) => {
  let t: TestDb;
  let db: Database;
  before(async () => {
    t = await createTestDb(dialect);
    await t.knex('soggetto_recapito').insert(Array.from({ length: 30 }, (_, i) => ({ id: i + 1, soggetto_id: 1 + (i % 3), tipo_recapito_id: 1, recapito: `r${i + 1}`, codice_esterno: null })));
    // MySQL: a pool of several connections, so that statements could have gone to different ones.
    db = dialect === 'mysql' ? connect({ databaseUrl: t.databaseUrl!, poolMax: 4, statementTimeoutMs: 5000 }) : t.db;
  });
  after(async () => {
    if (db !== t.db) await disconnect(db);
    await t.drop();
  });

  it('answers the page, the total and the aggregates of one request', async () => {
    const r = await runQuery(db, sr, { soggettoId: 2, take: 3, include: 'Total, COUNT(*) Recapiti, MAX(Id) Ultimo, MIN(Recapito) Primo' }, testContext());
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.response.total).to.equal(10);
    expect(r.value.response.results.map((x) => x.id)).to.deep.equal([2, 5, 8]);
    expect(r.value.response.meta).to.deep.include({ Recapiti: '10', Ultimo: '29' });
    expect(used(db)).to.equal(0);
  });

  // Declared only where the engine has it: a skipped test would pass unseen.
  if (dialect === 'mysql') it('runs every statement of one request on the connection the server reports as one, while others read beside it', async () => {
    const connectionIds = (n: number) =>
      selectTogether(db, 5000, async (select) => {
        const ids: number[] = [];
        for (let i = 0; i < n; i++) ids.push(Number(firstCell(await select('select CONNECTION_ID() AS id, SLEEP(0.05) AS s', []), 'id')));
        return ids;
      });
    const requests = await Promise.all([connectionIds(4), connectionIds(4), connectionIds(4)]);
    for (const ids of requests) expect(new Set(ids).size, JSON.stringify(requests)).to.equal(1);
    // Three requests at once on a pool of four: three connections, one each.
    expect(new Set(requests.map((ids) => ids[0])).size).to.equal(3);
    expect(used(db)).to.equal(0);
  });

  // Declared only where the engine has it: a skipped test would pass unseen.
  if (dialect === 'sqlite') it('reads every statement of one request in one snapshot: a write committed between two of them is seen by neither', async () => {
    const [before, after] = await selectTogether(db, 5000, async (select) => {
      const first = await count(select);
      await t.knex('soggetto_recapito').insert({ id: 31, soggetto_id: 1, tipo_recapito_id: 1, recapito: 'r31', codice_esterno: null });
      return [first, await count(select)];
    });
    expect([before, after]).to.deep.equal([30, 30]);
    // Outside that request the write is there.
    expect(await count((sql, bindings) => selectTable(db, sql, bindings))).to.equal(31);
    await t.knex('soggetto_recapito').where({ id: 31 }).del();
  });

  // Declared only where the engine has it: a skipped test would pass unseen.
  if (dialect === 'mysql') it('keeps the connection until a statement queued behind a failed one has settled', async () => {
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

  // Declared only where the engine has it: a skipped test would pass unseen.
  if (dialect === 'mysql') it("times each statement from when it is sent, not from when it was asked behind the others", async function () {
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
    expect(await count((sql, bindings) => selectTable(db, sql, bindings))).to.equal(30);
  });
});
