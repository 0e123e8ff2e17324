// Orders an index can serve are served by it (design.md §7, §8): EXPLAIN of the engine's
// own statements, on analyzed tables large enough that the planner has a choice, shows an
// index read in order and no sort, for a first page, a page after a cursor (each keyset
// group) and, on MySQL, the keys of a deep page read through the index (deferred join).
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { QueryDtoSpec } from '../../src/query/catalog-types.js';
import { render } from '../../src/query/render.js';
import { compile, runQuery } from '../../src/query/run-query.js';
import { statementCacheOf, type Statement } from '../../src/query/statements.js';
import type { SelectParts } from '../../src/query/select-parts.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { dialects } from '../support/dialects.js';
import { cg, sr, testContext } from '../support/query-catalog.js';

const ROWS = 20_000;
const ctx = testContext();

async function load(db: Knex): Promise<void> {
  const ids = Array.from({ length: ROWS }, (_, i) => i + 1);
  // One recapito in ten is NULL and every value repeats about five times: ties and NULLs at both ends.
  await db.batchInsert('soggetto_recapito', ids.map((i) => ({
    id: i, soggetto_id: i % 997, tipo_recapito_id: i % 7, recapito: i % 10 === 0 ? null : `Via ${String(i % 4000).padStart(5, '0')}`, codice_esterno: i % 3 === 0 ? null : `K${i % 5000}`,
  })), 400);
  await db.batchInsert('caratteristica_gruppo', ids.map((i) => ({
    id: i, descrizione: `Voce ${i % 3000}`, tipo_caratteristica_sezione_id: i % 50, is_disattiva: i % 2, icona_immagine_id: i % 800, ordine_vista: i % 1200,
  })), 400);
}

type Explained = { mysql: Array<Record<string, unknown>>; sqlite: string[] };

async function explain(t: TestDb, { sql, bindings }: Statement): Promise<Explained[keyof Explained]> {
  if (t.dialect === 'mysql') return ((await t.knex.raw(`EXPLAIN ${sql}`, [...bindings])) as [Array<Record<string, unknown>>])[0];
  return ((await t.knex.raw(`EXPLAIN QUERY PLAN ${sql}`, [...bindings])) as Array<{ detail: string }>).map((r) => r.detail);
}

/** The page statements of a request, as the engine runs them. */
function pageStatements(t: TestDb, dto: QueryDtoSpec, request: Record<string, unknown>, context = ctx): { parts: readonly SelectParts[]; statements: Statement[] } {
  const planned = compile(dto, request, context);
  if (!planned.ok) throw planned.error;
  const parts = render(t.dialect, planned.value, context).page;
  return { parts, statements: parts.map((p) => statementCacheOf(t.db).statement(p)) };
}

/**
 * The index that serves the order, read in order: no filesort on MySQL, no temporary B-tree
 * on SQLite. `orKey`: a statement whose order is down to the key (its other terms all NULL)
 * may read a short range of the primary key instead, as cheap and as ordered.
 */
function expectIndexOrder(t: TestDb, plan: Explained[keyof Explained], index: string, orKey = false): void {
  const text = JSON.stringify(plan);
  if (t.dialect === 'mysql') {
    // Every row of the plan: a derived table or a second select must not sort either.
    const rows = plan as Explained['mysql'];
    expect(rows, text).to.have.length.above(0);
    for (const row of rows) {
      expect(row['key'], text).to.be.oneOf(orKey ? [index, 'PRIMARY'] : [index]);
      expect(String(row['Extra'] ?? ''), text).not.to.match(/filesort|temporary/i);
    }
  } else {
    expect(text).to.match(new RegExp(`(SCAN|SEARCH) \\w+ USING (COVERING INDEX ${index}|INDEX ${index}${orKey ? '|INTEGER PRIMARY KEY' : ''})\\b`));
    expect(text).not.to.match(/TEMP B-TREE/);
  }
}

const orders: Array<[QueryDtoSpec, Record<string, string>, string]> = [
  [sr, { orderBy: 'Recapito' }, 'ix_soggetto_recapito_recapito'],
  [sr, { orderByDesc: 'Recapito' }, 'ix_soggetto_recapito_recapito'],
  [sr, { orderByDesc: 'SoggettoId' }, 'ix_soggetto_recapito_soggetto_id'],
  [sr, { orderBy: '-CodiceEsterno' }, 'ix_soggetto_recapito_codice_esterno'],
  [cg, { orderBy: 'OrdineVista' }, 'ix_caratteristica_gruppo_ordine_vista'],
  [cg, { orderByDesc: 'Descrizione' }, 'ix_caratteristica_gruppo_descrizione'],
];

for (const dialect of dialects) {
  describe(`query order plans [${dialect}]`, function () {
    this.timeout(120000);
    let t: TestDb;
    before(async () => {
      t = await createTestDb(dialect);
      await load(t.knex);
      await t.knex.raw(dialect === 'mysql' ? 'ANALYZE TABLE soggetto_recapito, caratteristica_gruppo' : 'ANALYZE');
    });
    after(async () => t?.drop());

    for (const [dto, order, index] of orders) {
      const name = Object.entries(order).map(([k, v]) => `${k}=${v}`).join('&');
      it(`${dto.operation} ${name}: the first page reads ${index} in order`, async () => {
        const { statements } = pageStatements(t, dto, { ...order, take: 50 });
        expect(statements).to.have.length(1);
        expectIndexOrder(t, await explain(t, statements[0]!), index);
      });

      it(`${dto.operation} ${name}: every statement of a page after a cursor reads ${index} in order`, async () => {
        // Cursors from the middle, from the NULL rows and from the last non-NULL value: each
        // page of 3 ends before the last row, so each has a cursor to explain.
        for (const skip of [7000, ROWS - 5, 1000]) {
          const first = await runQuery(t.db, dto, { ...order, skip, take: 3 }, ctx);
          if (!first.ok) throw first.error;
          const next = first.value.response.next;
          expect(next, `skip=${skip}`).to.be.a('string');
          const { parts, statements } = pageStatements(t, dto, { ...order, take: 50, after: next });
          expect(statements, `skip=${skip}`).to.have.length.above(0);
          for (const [i, s] of statements.entries()) expectIndexOrder(t, await explain(t, s), index, parts[i]!.order!.bindings.length === 1);
        }
      });
    }

    it('an order in mixed directions sorts (no single index serves it)', async () => {
      const { statements } = pageStatements(t, sr, { orderBy: 'Recapito', orderByDesc: 'SoggettoId', take: 50 });
      const text = JSON.stringify(await explain(t, statements[0]!));
      expect(text).to.match(dialect === 'mysql' ? /filesort/ : /TEMP B-TREE/);
    });

    if (dialect === 'mysql') {
      it('a deep skip reads the page keys through the covering index, then joins their rows', async () => {
        const { parts, statements } = pageStatements(t, sr, { orderBy: 'Recapito', skip: 15000, take: 50 });
        expect(parts[0]!.form).to.equal('deferred');
        const rows = (await explain(t, statements[0]!)) as Explained['mysql'];
        const keys = rows.find((r) => r['key'] === 'ix_soggetto_recapito_recapito');
        expect(keys, JSON.stringify(rows)).not.to.equal(undefined);
        expect(String(keys!['Extra']), JSON.stringify(rows)).to.match(/Using index/);
        expect(String(keys!['Extra']), JSON.stringify(rows)).not.to.match(/filesort/);
      });

      it('the deferred form answers exactly the rows of the plain form', async () => {
        const plain = { ...ctx, deferredJoinFrom: Number.MAX_SAFE_INTEGER };
        for (const request of [
          { orderBy: 'Recapito', skip: 1000, take: 40 },
          { orderByDesc: 'Recapito', skip: 17990, take: 30 },
          { orderBy: 'CodiceEsterno,-SoggettoId', skip: 5000, take: 25, fields: 'Recapito' },
          { tipoRecapitoId: 3, orderByDesc: 'SoggettoId', skip: 1200, take: 100 },
          { skip: 19990, take: 50 },
        ]) {
          expect(pageStatements(t, sr, request).parts[0]!.form, JSON.stringify(request)).to.equal('deferred');
          const deferred = await runQuery(t.db, sr, request, ctx);
          const direct = await runQuery(t.db, sr, request, plain);
          if (!deferred.ok || !direct.ok) throw new Error('query failed');
          expect(deferred.value.response.results, JSON.stringify(request)).to.have.length.above(0);
          expect(deferred.value.response, JSON.stringify(request)).to.deep.equal(direct.value.response);
        }
      });
    }
  });
}
