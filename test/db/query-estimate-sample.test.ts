// Include=EstimatedTotal on a filter no index range serves (design.md §7), on each engine: a
// random sample of keys settles a result far past the limit without the count that would
// scan the table, and a result within the limit is still counted exactly.
import { expect } from 'chai';
import { watchReads } from '../../src/db/reads/select.js';
import type { QueryResponse } from '../../src/query/execute.js';
import { runQuery } from '../../src/query/run-query.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { sr, testContext } from '../support/query-catalog.js';

const ROWS = 5000;
const LIMIT = 20;
const ctx = testContext({ estimateExactUpTo: LIMIT });

/** Half the rows are PEC addresses; one in 400 is a rare domain (13 rows in all). */
const recapitoOf = (id: number): string => (id % 400 === 7 ? `z${id}@raro.it` : id % 2 === 0 ? `x${id}@pec.it` : `y${id}@posta.it`);

forEachDialect('query EstimatedTotal by sample', (dialect) => {
  let t: TestDb;
  const statements: string[] = [];
  before(async function () {
    this.timeout(60000);
    t = await createTestDb(dialect);
    const rows = Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, soggetto_id: (i + 1) % 100, tipo_recapito_id: 1 + (i % 5), recapito: recapitoOf(i + 1), codice_esterno: null }));
    await t.knex.batchInsert('soggetto_recapito', rows, 500);
    await t.knex.raw(dialect === 'mysql' ? 'ANALYZE TABLE soggetto_recapito' : 'ANALYZE');
    watchReads(t.db, (q) => statements.push(q.sql));
  });
  after(async () => t?.drop());

  async function estimate(request: Record<string, unknown>): Promise<{ response: QueryResponse; sampled: boolean; counted: boolean; indexed: boolean }> {
    statements.length = 0;
    const r = await runQuery(t.db, sr, { take: 0, include: 'EstimatedTotal', ...request }, ctx);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    // The sample looks up its keys with an IN list; the capped count selects `1` from the filter's rows, under a limit.
    const sampled = statements.some((sql) => /\bin \((\?, ){255}\?\)/i.test(sql));
    // The substring index's own bounded count (design.md §8, "Substring index") only picks the route.
    const counted = statements.some((sql) => /\(select 1 from/i.test(sql) && !/\(select 1 from [`"]?\w+_trigrams/i.test(sql));
    // Whether the substring index was asked: on SQLite its count of a lone Contains is the filter's.
    const indexed = statements.some((sql) => /_trigrams/.test(sql));
    return { response: r.value.response, sampled, counted, indexed };
  }

  async function exactCount(request: Record<string, unknown>): Promise<number> {
    const r = await runQuery(t.db, sr, { take: 0, include: 'Total', ...request }, ctx);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.value.response.total!;
  }

  it('settles a pattern matching half the table from the sample, without the count', async () => {
    for (let i = 0; i < 5; i++) {
      const { response, sampled, counted } = await estimate({ recapitoContains: '@pec' });
      expect(response.estimatedTotalKind).to.equal('estimate');
      // 2,500 rows; the sample's standard error is about 150.
      expect(response.estimatedTotal).to.be.within(1500, 3500);
      expect([sampled, counted]).to.deep.equal([true, false]);
      expect(response.results).to.deep.equal([]);
    }
  });

  it('still counts a pattern within the limit exactly, every time', async () => {
    for (let i = 0; i < 10; i++) {
      const { response, counted, indexed } = await estimate({ recapitoContains: 'raro' });
      expect([response.estimatedTotal, response.estimatedTotalKind]).to.deep.equal([13, 'exact']);
      expect(counted || (t.dialect === 'sqlite' && indexed)).to.equal(true);
    }
  });

  it('is exact whenever the filter matches at most the limit, and past the limit otherwise', async () => {
    const patterns = ['@pec', 'raro', '1', '12', '123', '7@', '00@', '99', '4@posta', 'z7', 'nowhere'];
    for (const recapitoContains of patterns) {
      for (const extra of [{}, { tipoRecapitoId: 2 }, { soggettoIdBetween: [10, 30] }]) {
        const request = { recapitoContains, ...extra };
        const total = await exactCount(request);
        const { response } = await estimate(request);
        if (total <= LIMIT) expect([response.estimatedTotal, response.estimatedTotalKind], JSON.stringify(request)).to.deep.equal([total, 'exact']);
        else {
          expect(response.estimatedTotalKind, JSON.stringify(request)).not.to.equal('exact');
          expect(response.estimatedTotal, JSON.stringify(request)).to.be.above(LIMIT);
        }
      }
    }
  });

  // SQLite keeps no row estimate for two filters together, so it samples first there.
  if (dialect === 'mysql') {
    it('counts without sampling where the plan reads few rows through an index', async () => {
      for (const request of [{ soggettoId: 5, recapitoContains: '@' }, { soggettoId: 5, recapitoContains: '1' }]) {
        const total = await exactCount(request);
        const { response, sampled, counted } = await estimate(request);
        expect([sampled, counted], JSON.stringify(request)).to.deep.equal([false, true]);
        if (total <= LIMIT) expect([response.estimatedTotal, response.estimatedTotalKind]).to.deep.equal([total, 'exact']);
        else expect(response.estimatedTotal).to.be.above(LIMIT);
      }
    });
  }
});
