// Cursor paging (design.md §7), a property test on each engine: walking every page by `next`
// returns exactly the rows of one unpaged query in the same order, none twice, and exactly
// the rows the reference evaluator of the differential test (support/query-reference.ts)
// finds, under random filters and orders over nullable and duplicate-valued fields in both
// directions, 1-50 rows a page; totals and aggregates stay those of the whole filter; and
// rows inserted between pages, some of them before the cursor, never bring back a row at or
// before it, while those after it are on the pages that follow.
import { expect } from 'chai';
import fc from 'fast-check';
import type { QueryDtoSpec } from '../../src/query/catalog-types.js';
import type { QueryResponse } from '../../src/query/execute.js';
import type { QueryPlan } from '../../src/query/plan-types.js';
import { compile, runQuery } from '../../src/query/run-query.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { dialects } from '../support/dialects.js';
import { assertProperty } from '../support/property-seed.js';
import { dataset, requestOf } from '../support/query-arbitraries.js';
import { cg, sr, testContext } from '../support/query-catalog.js';
import { evaluate, sorter, type Row } from '../support/query-reference.js';

const RUNS = Number(process.env['QUERY_PROPERTY_RUNS'] ?? 500) / 5;
const ctx = testContext();
const asDb = (r: Row) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v]));

async function query(t: TestDb, dto: QueryDtoSpec, request: Record<string, unknown>): Promise<QueryResponse> {
  const r = await runQuery(t.db, dto, request, ctx);
  if (!r.ok) throw new Error(JSON.stringify(r.error.errors));
  return r.value.response;
}

function planOf(dto: QueryDtoSpec, request: Record<string, unknown>): QueryPlan {
  const planned = compile(dto, request, ctx);
  if (!planned.ok) throw new Error(`generated an invalid query: ${JSON.stringify(planned.error.errors)}`);
  return planned.value;
}

/** The reference's answer to `request` over `table`, every matching row on one page. */
const reference = (dto: QueryDtoSpec, request: Record<string, unknown>, table: readonly Row[]): QueryResponse => {
  const plan = planOf(dto, request);
  return evaluate({ ...plan, paging: { ...plan.paging, skip: 0, take: Number.POSITIVE_INFINITY } }, table);
};

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
    // What the database holds, kept in step by every insert: the reference reads it.
    const tables = new Map<QueryDtoSpec, Row[]>([[cg, dataset(cg, 120, 3)], [sr, dataset(sr, 120, 5)]]);
    before(async () => {
      t = await createTestDb(dialect);
      for (const [dto, rows] of tables) await t.knex.batchInsert(dto.table, rows.map(asDb), 100);
    });
    after(async () => t?.drop());

    for (const dto of [cg, sr]) {
      it(`walking ${RUNS} random ${dto.operation} queries by cursor gives the unpaged rows and the reference's, in order, once each`, async () => {
        let turned = 0;
        await assertProperty(
          fc.asyncProperty(walkOf(dto), async ({ request, take }) => {
            const whole = await query(t, dto, { ...request, take: 1000 });
            const want = reference(dto, request, tables.get(dto)!);
            const seen: Record<string, unknown>[] = [];
            let page = await query(t, dto, { ...request, take });
            for (let pages = 1; ; pages++) {
              expect(page.results.length, 'a page before the last is full').to.be.at.most(take);
              expect([page.total, page.meta]).to.deep.equal([whole.total, whole.meta]);
              expect([page.total, page.meta], 'the reference').to.deep.equal([want.total, want.meta]);
              seen.push(...page.results);
              if (page.next === undefined) break;
              expect(page.results).to.have.length(take);
              expect(pages, 'pages').to.be.at.most(whole.results.length);
              page = await query(t, dto, { ...request, take, after: page.next });
              turned++;
            }
            expect(seen).to.deep.equal(whole.results);
            expect(seen, 'the reference').to.deep.equal(want.results);
            expect(new Set(seen.map((r) => r['id'])).size).to.equal(seen.length);
          }),
          { numRuns: RUNS },
        );
        // Walks of one page each would prove nothing about the cursor.
        expect(turned, 'pages turned by cursor').to.be.at.least(RUNS);
      });
    }

    it('rows inserted between pages never bring back a row at or before the cursor, and those after it follow', async () => {
      const dto = sr;
      const table = tables.get(dto)!;
      // One growing table: every walk inserts rows all over the order, copies of its own rows
      // among them so that some land before its cursor.
      let nextId = 10_000;
      let insertedBefore = 0;
      await assertProperty(
        fc.asyncProperty(walkOf(dto), fc.integer({ min: 1, max: 2 ** 20 }), async ({ request, take: wanted }, seed) => {
          const matching = reference(dto, request, table).results.length;
          // A walk needs a second page: a filter matching fewer than two rows is drawn again.
          fc.pre(matching >= 2);
          const take = Math.min(wanted, matching - 1);
          const order = sorter(planOf(dto, request).order);
          const rowOf = (rec: Record<string, unknown>): Row => Object.fromEntries(dto.fields.map((f) => [f.column, (rec[f.property] ?? null) as Row[string]]));
          let page = await query(t, dto, { ...request, take });
          let last = page.results.at(-1)!;
          let pages = 0;
          for (; pages < 4 && page.next !== undefined; pages++) {
            const copies = reference(dto, request, table).results.slice(0, 2).map((rec) => ({ ...rowOf(rec), id: 0 }));
            const extra = [...copies, ...dataset(dto, 2, seed + nextId)].map((r) => ({ ...r, id: nextId++ }));
            await t.knex.batchInsert(dto.table, extra.map(asDb), 100);
            table.push(...extra);
            insertedBefore += extra.filter((r) => reference(dto, request, [r]).results.length === 1 && order(r, rowOf(last)) < 0).length;
            // The rows after the cursor as the reference finds them now, inserted ones included.
            const after = reference(dto, request, table).results.filter((rec) => order(rowOf(rec), rowOf(last)) > 0);
            page = await query(t, dto, { ...request, take, after: page.next });
            expect(page.results, JSON.stringify(last)).to.deep.equal(after.slice(0, take));
            expect(page.next !== undefined, 'a further page').to.equal(after.length > take);
            last = page.results.at(-1) ?? last;
          }
          expect(pages, 'pages turned').to.be.at.least(1);
        }),
        { numRuns: dialect === 'mysql' ? 15 : 30 },
      );
      expect(insertedBefore, 'rows inserted before a cursor').to.be.above(0);
    });
  });
}
