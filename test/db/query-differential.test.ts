// Differential property test: random valid queries give the same response on SQLite,
// on MySQL (when DIALECTS lists it) and from the reference evaluator.
import { expect } from 'chai';
import fc from 'fast-check';
import type { QueryDtoSpec } from '../../src/query/catalog-types.js';
import { compile, runQuery } from '../../src/query/run-query.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { dialects } from '../support/dialects.js';
import { assertProperty } from '../support/property-seed.js';
import { dataset, requestOf } from '../support/query-arbitraries.js';
import { cg, sr, testContext } from '../support/query-catalog.js';
import { evaluate, type Row } from '../support/query-reference.js';

const RUNS = Number(process.env['QUERY_PROPERTY_RUNS'] ?? 500);
const ctx = testContext();

describe(`query differential [${dialects.join(',')} + reference]`, function () {
  this.timeout(120000);
  const dbs: TestDb[] = [];
  const tables = new Map<QueryDtoSpec, Row[]>([
    [cg, dataset(cg, 150, 7)],
    [sr, dataset(sr, 150, 11)],
  ]);

  before(async () => {
    for (const d of dialects) {
      const t = await createTestDb(d);
      dbs.push(t);
      for (const [dto, rows] of tables) {
        // Booleans as 1/0: better-sqlite3 refuses JS booleans as parameters.
        await t.knex.batchInsert(dto.table, rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v]))), 100);
      }
    }
  });
  after(async () => Promise.all(dbs.map((t) => t.drop())));

  for (const dto of [cg, sr]) {
    it(`${RUNS} random ${dto.operation} queries agree`, async () => {
      await assertProperty(
        fc.asyncProperty(requestOf(dto), async (request) => {
          const planned = compile(dto, request, ctx);
          if (!planned.ok) throw new Error(`generated an invalid query: ${JSON.stringify(planned.error.errors)}`);
          const want = evaluate(planned.value, tables.get(dto)!);
          for (const t of dbs) {
            const got = await runQuery(t.db, dto, request, ctx);
            if (!got.ok) throw got.error;
            const { next, ...rest } = got.value.response;
            expect(next === undefined ? rest : { ...rest, next: 'more' }, t.dialect).to.deep.equal(want);
          }
        }),
        { numRuns: RUNS },
      );
    });
  }
});
