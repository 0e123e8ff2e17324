// Plans read (design.md §7, "Substring search"): a Contains or EndsWith of three characters
// or more reads the field's substring index, on the page, the Total and the EstimatedTotal
// count; a shorter term scans. EXPLAIN of the statements the engine runs, on analysed rows.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { render } from '../../src/query/render.js';
import { compile } from '../../src/query/run-query.js';
import type { SelectParts } from '../../src/query/select-parts.js';
import { statementCacheOf } from '../../src/query/statements.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { cg, sr, testContext } from '../support/query-catalog.js';

// Enough rows that both optimizers prefer an index to a scan; short values keep MySQL's
// trigger work (one row per trigram) to seconds.
const ROWS = 2000;
const ctx = testContext();

/** One line per table the plan reads: `table key type` (MySQL) or SQLite's own detail lines. */
async function planOf(db: Knex, parts: SelectParts): Promise<string[]> {
  const { sql, bindings } = statementCacheOf(db).statement(parts);
  if (db.client.config.client === 'mysql2') {
    const [rows] = (await db.raw(`EXPLAIN ${sql}`, [...bindings])) as [Array<{ table: string; key: string | null; type: string }>];
    return rows.map((r) => `${r.table} ${r.key} ${r.type}`);
  }
  return ((await db.raw(`EXPLAIN QUERY PLAN ${sql}`, [...bindings])) as Array<{ detail: string }>).map((r) => r.detail);
}

/** The statements a request runs: the page, the summary (Total) and the capped count of EstimatedTotal. */
function statementsOf(db: Knex, dto: typeof sr, request: Record<string, unknown>): SelectParts[] {
  const planned = compile(dto, request, ctx);
  if (!planned.ok) throw planned.error;
  const rendered = render(db, planned.value, ctx);
  return [...rendered.page, ...(rendered.summary ? [rendered.summary] : []), ...(rendered.estimate ? [rendered.estimate.capped] : [])];
}

forEachDialect('substring index plans', (dialect) => {
  let t: TestDb;
  before(async function () {
    this.timeout(120000);
    t = await createTestDb(dialect);
    const ids = Array.from({ length: ROWS }, (_, i) => i + 1);
    await t.db.batchInsert('soggetto_recapito', ids.map((i) => ({ id: i, soggetto_id: i % 1000, tipo_recapito_id: 1, recapito: `u${i}@Città${i % 97}`, codice_esterno: `K${i}` })), 500);
    await t.db.batchInsert('caratteristica_gruppo', ids.map((i) => ({ id: i, descrizione: `V ${i}`, tipo_caratteristica_sezione_id: 1, is_disattiva: 0, icona_immagine_id: 1, ordine_vista: i })), 500);
    await t.db.raw(dialect === 'mysql' ? 'ANALYZE TABLE soggetto_recapito, caratteristica_gruppo, sx_soggetto_recapito_recapito, sx_soggetto_recapito_codice_esterno, sx_caratteristica_gruppo_descrizione' : 'ANALYZE');
  });
  after(async () => t?.drop());

  const served: Array<[typeof sr, Record<string, unknown>, string]> = [
    [sr, { recapitoContains: 'u1234@' }, 'sx_soggetto_recapito_recapito'],
    [sr, { recapitoContains: 'CITTA5', orderBy: 'Recapito', include: 'Total' }, 'sx_soggetto_recapito_recapito'],
    [sr, { recapitoEndsWith: '1234@città70', include: 'EstimatedTotal' }, 'sx_soggetto_recapito_recapito'],
    [sr, { codiceEsternoContains: 'k123' }, 'sx_soggetto_recapito_codice_esterno'],
    [cg, { descrizioneContains: 'v 12' }, 'sx_caratteristica_gruppo_descrizione'],
  ];
  for (const [dto, request, index] of served) {
    it(`${JSON.stringify(request)} reads ${index}`, async () => {
      for (const parts of statementsOf(t.db, dto, request)) {
        const plan = await planOf(t.db, parts);
        if (dialect === 'mysql') {
          expect(plan.some((line) => line.startsWith(`${index} PRIMARY ref`)), plan.join('\n')).to.equal(true);
          // The capped count wraps the rows in a derived table, which it reads whole.
          expect(plan.some((line) => / (ALL|index)$/.test(line) && !line.startsWith('<derived')), plan.join('\n')).to.equal(false);
        } else {
          expect(plan.join(' | ')).to.contain(`SCAN ${index} VIRTUAL TABLE INDEX 0:M`);
          expect(plan.join(' | ')).to.match(/SEARCH \w+ USING INTEGER PRIMARY KEY \(rowid=\?\)/);
        }
      }
    });
  }

  it('a term of two characters scans without the index', async () => {
    const [parts] = statementsOf(t.db, sr, { recapitoContains: 'u1' });
    const plan = (await planOf(t.db, parts!)).join(' | ');
    expect(plan).to.not.contain('sx_');
    expect(plan).to.match(dialect === 'mysql' ? /^soggetto_recapito \S+ (ALL|index)$/ : /SCAN soggetto_recapito/);
  });
});
