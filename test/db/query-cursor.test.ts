// Cursor paging (design.md §7), a property test on each engine: walking every page by `next`
// returns exactly the rows of one unpaged query in the same order, none twice, under random
// filters and orders over nullable and duplicate-valued fields in both directions, 1-50 rows
// a page; totals and aggregates stay those of the whole filter; and rows inserted between
// pages never bring back a row at or before the cursor.
import { expect } from 'chai';
import fc from 'fast-check';
import type { QueryDtoSpec } from '../../src/query/catalog-types.js';
import type { QueryResponse } from '../../src/query/execute.js';
import { compile, runQuery } from '../../src/query/run-query.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { dialects } from '../support/dialects.js';
import { dataset, requestOf } from '../support/query-arbitraries.js';
import { cg, sr, testContext } from '../support/query-catalog.js';
import { sorter, type Row } from '../support/query-reference.js';

const RUNS = Number(process.env['QUERY_PROPERTY_RUNS'] ?? 500) / 5;
const ctx = testContext();
const tables = new Map<QueryDtoSpec, Row[]>([[cg, dataset(cg, 120, 3)], [sr, dataset(sr, 120, 5)]]);
const asDb = (r: Row) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v]));

async function query(t: TestDb, dto: QueryDtoSpec, request: Record<string, unknown>): Promise<QueryResponse> {
  const r = await runQuery(t.db, dto, request, ctx);
  if (!r.ok) throw new Error(JSON.stringify(r.error.errors));
  return r.value.response;
}

/** A random query without paging of its own: filters, an order, maybe Total and aggregates; all fields. */
const walkOf = (dto: QueryDtoSpec) =>
  fc.tuple(requestOf(dto), fc.integer({ min: 1, max: 50 })).map(([request, take]) => {
    const { skip: _s, take: _t, fields: _f, ...rest } = request;
    return { request: rest, take };
  });

for (const dialect of dialects) {
  describe(`query cursor paging [${dialect}]`, function () {
    this.timeout(180000);
    let t: TestDb;
    before(async () => {
      t = await createTestDb(dialect);
      for (const [dto, rows] of tables) await t.db.batchInsert(dto.table, rows.map(asDb), 100);
    });
    after(async () => t?.drop());

    for (const dto of [cg, sr]) {
      it(`walking ${RUNS} random ${dto.operation} queries by cursor gives the unpaged rows, in order, once each`, async () => {
        await fc.assert(
          fc.asyncProperty(walkOf(dto), async ({ request, take }) => {
            const whole = await query(t, dto, { ...request, take: 1000 });
            const seen: Record<string, unknown>[] = [];
            let page = await query(t, dto, { ...request, take });
            for (let pages = 1; ; pages++) {
              expect(page.results.length, 'a page before the last is full').to.be.at.most(take);
              expect(page.total).to.equal(whole.total);
              expect(page.meta).to.deep.equal(whole.meta);
              seen.push(...page.results);
              if (page.next === undefined) break;
              expect(page.results).to.have.length(take);
              expect(pages, 'pages').to.be.at.most(whole.results.length);
              page = await query(t, dto, { ...request, take, after: page.next });
            }
            expect(seen).to.deep.equal(whole.results);
            expect(new Set(seen.map((r) => r['id'])).size).to.equal(seen.length);
          }),
          { numRuns: RUNS },
        );
      });
    }

    it('rows inserted between pages never bring back a row at or before the cursor', async () => {
      const dto = sr;
      // One growing table: every walk inserts rows all over the order, some before its cursor.
      let nextId = 10_000;
      await fc.assert(
        fc.asyncProperty(walkOf(dto), fc.integer({ min: 1, max: 2 ** 20 }), async ({ request, take }, seed) => {
          const planned = compile(dto, request, ctx);
          if (!planned.ok) throw planned.error;
          const order = sorter(planned.value.order);
          const rowOf = (rec: Record<string, unknown>): Row => Object.fromEntries(dto.fields.map((f) => [f.column, (rec[f.property] ?? null) as Row[string]]));
          let page = await query(t, dto, { ...request, take });
          let last = page.results.at(-1);
          for (let pages = 0; pages < 8 && page.next !== undefined && last !== undefined; pages++) {
            const extra = dataset(dto, 4, seed + nextId).map((r) => ({ ...r, id: nextId++ }));
            await t.db.batchInsert(dto.table, extra.map(asDb), 100);
            page = await query(t, dto, { ...request, take, after: page.next });
            for (const rec of page.results) expect(order(rowOf(rec), rowOf(last)), JSON.stringify([last, rec])).to.be.above(0);
            last = page.results.at(-1) ?? last;
          }
        }),
        { numRuns: dialect === 'mysql' ? 15 : 30 },
      );
    });
  });
}
