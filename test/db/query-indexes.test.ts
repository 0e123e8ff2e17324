// Every filterable column can be searched through an index: EXPLAIN of the engine's own
// page query for equality, In, ranges and StartsWith, with enough rows that the
// optimizer prefers the index to a scan (statistics refreshed with ANALYZE TABLE).
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { OperatorKind } from '../../src/query/catalog-types.js';
import { render } from '../../src/query/render.js';
import { compile } from '../../src/query/run-query.js';
import { statementCacheOf, type Statement } from '../../src/query/statements.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { dialects } from '../support/dialects.js';
import { cg, sr, testContext } from '../support/query-catalog.js';

const ROWS = 4000;
const pad = (i: number) => String(i).padStart(5, '0');

async function load(db: Knex): Promise<void> {
  const ids = Array.from({ length: ROWS }, (_, i) => i + 1);
  await db.batchInsert('caratteristica_gruppo', ids.map((i) => ({
    id: i, descrizione: `Voce ${pad(i)}`, tipo_caratteristica_sezione_id: i % 400, is_disattiva: i % 100 === 0 ? 1 : 0, icona_immagine_id: i * 7, ordine_vista: i * 3 - 7000,
  })), 500);
  await db.batchInsert('soggetto_recapito', ids.map((i) => ({
    id: i, soggetto_id: i % 1000, tipo_recapito_id: i % 300, recapito: `Via ${pad(i)}`, codice_esterno: `K${pad(i)}`,
  })), 500);
}

/** Selective filters per column: value builders for each operator the column's family has. */
const probes: Array<[typeof cg, string, Partial<Record<OperatorKind, unknown>>]> = [
  [cg, 'id', { eq: 1234, in: [5, 17, 3001], between: [100, 110], gte: 3990 }],
  [cg, 'descrizione', { eq: 'voce 01234', in: ['Voce 00005', 'VOCE 03001'], between: ['Voce 00100', 'Voce 00110'], startsWith: 'Voce 0123' }],
  [cg, 'tipoCaratteristicaSezioneId', { eq: 17, in: [1, 2, 3], between: [10, 11], gte: 399 }],
  [cg, 'isDisattiva', { eq: true }],
  [cg, 'iconaImmagineId', { eq: 700, in: [7, 14, 21], between: [700, 770], gte: 27950 }],
  [cg, 'ordineVista', { eq: -6997, in: [-6997, -6994], between: [0, 30], gte: 4990 }],
  [sr, 'id', { eq: 77, in: [1, 2], between: [10, 20], gte: 3995 }],
  [sr, 'soggettoId', { eq: 5, in: [5, 6], between: [5, 7], gte: 998 }],
  [sr, 'tipoRecapitoId', { eq: 5, in: [5, 6], between: [5, 6], gte: 299 }],
  [sr, 'recapito', { eq: 'via 00077', in: ['Via 00001', 'via 00002'], between: ['Via 00010', 'Via 00020'], startsWith: 'VIA 0007' }],
  [sr, 'codiceEsterno', { eq: 'k00077', in: ['K00001', 'k00002'], between: ['K00010', 'K00020'], startsWith: 'k0007' }],
];

const suffix: Partial<Record<OperatorKind, string>> = { eq: '', in: 'In', between: 'Between', gte: 'GreaterThanOrEqualTo', startsWith: 'StartsWith' };

async function explainMysql(db: Knex, { sql, bindings }: Statement): Promise<Array<{ key: string | null; type: string }>> {
  const [rows] = (await db.raw(`EXPLAIN ${sql}`, [...bindings])) as [Array<{ key: string | null; type: string }>];
  return rows;
}

async function explainSqlite(db: Knex, { sql, bindings }: Statement): Promise<string[]> {
  const rows = (await db.raw(`EXPLAIN QUERY PLAN ${sql}`, [...bindings])) as Array<{ detail: string }>;
  return rows.map((r) => r.detail);
}

for (const dialect of dialects) {
  describe(`query indexes [${dialect}]`, function () {
    this.timeout(60000);
    let t: TestDb;
    before(async () => {
      t = await createTestDb(dialect);
      await load(t.knex);
      if (dialect === 'mysql') await t.knex.raw('ANALYZE TABLE caratteristica_gruppo, soggetto_recapito');
      else await t.knex.raw('ANALYZE');
    });
    after(async () => t?.drop());

    for (const [dto, property, values] of probes) {
      for (const [op, value] of Object.entries(values)) {
        const param = property + suffix[op as OperatorKind];
        it(`${dto.table}.${param} uses an index`, async () => {
          const planned = compile(dto, { [param]: value }, testContext());
          if (!planned.ok) throw planned.error;
          // The statement the engine runs, from the statement cache.
          const page = statementCacheOf(t.db).statement(render(t.dialect, planned.value, testContext()).page[0]!);
          if (dialect === 'mysql') {
            const [row] = await explainMysql(t.knex, page);
            expect(row?.key, JSON.stringify(row)).to.be.a('string');
            expect(row?.type, JSON.stringify(row)).to.be.oneOf(['const', 'eq_ref', 'ref', 'range']);
          } else {
            const detail = (await explainSqlite(t.knex, page)).join(' | ');
            expect(detail).to.match(/SEARCH .* USING (INDEX|INTEGER PRIMARY KEY|COVERING INDEX)/);
          }
        });
      }
    }
  });
}
