// Migration 007 adds the substring indexes to a database that already holds rows, and rolls
// back to the plain tables: the searches answer the same on both sides of it.
import { expect } from 'chai';
import { down, up } from '../../src/db/migrations/007-substring-indexes.js';
import type { QueryDtoSpec } from '../../src/query/catalog-types.js';
import { runQuery } from '../../src/query/run-query.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { sr, testContext } from '../support/query-catalog.js';

forEachDialect('migration 007: substring indexes', (dialect) => {
  let t: TestDb;
  before(async () => {
    t = await createTestDb(dialect);
  });
  after(async () => t?.drop());

  const tables = async (): Promise<string[]> => {
    if (dialect === 'mysql') {
      const [rows] = (await t.db.raw("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'sx\\_%'")) as [Array<{ name: string }>];
      return rows.map((r) => r.name).sort();
    }
    return ((await t.db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'sx\\_%' ESCAPE '\\' AND sql LIKE 'CREATE VIRTUAL%'")) as Array<{ name: string }>).map((r) => r.name).sort();
  };
  // A build without the index (every field's substringIndex off) is what runs on a rolled-back database.
  const without: QueryDtoSpec = { ...sr, fields: sr.fields.map((f) => ({ ...f, substringIndex: false })) };
  const found = async (term: string, dto = sr) => {
    const got = await runQuery(t.db, dto, { recapitoContains: term, fields: 'Id' }, testContext());
    if (!got.ok) throw got.error;
    return got.value.response.results.map((r) => r['id']);
  };

  it('rolls back to no index and forward to an index of the rows already there', async () => {
    const indexes = ['sx_caratteristica_gruppo_descrizione', 'sx_soggetto_recapito_codice_esterno', 'sx_soggetto_recapito_recapito'];
    expect(await tables()).to.deep.equal(indexes);
    await down(t.db);
    expect(await tables()).to.deep.equal([]);
    await t.db('soggetto_recapito').insert([{ id: 1, soggetto_id: 1, tipo_recapito_id: 1, recapito: 'Sede di Città' }, { id: 2, soggetto_id: 1, tipo_recapito_id: 1, recapito: 'altro' }]);
    expect(await found('CITTA', without)).to.deep.equal([1]);
    await up(t.db);
    expect(await tables()).to.deep.equal(indexes);
    expect(await found('CITTA')).to.deep.equal([1]);
    await t.db('soggetto_recapito').where({ id: 2 }).update({ recapito: 'la città' });
    expect(await found('citta')).to.deep.equal([1, 2]);
  });
});
