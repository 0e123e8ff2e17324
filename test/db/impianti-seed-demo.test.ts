// The demo seed on each engine: the promised trees and lookup rows, and idempotency
// (a second run, or a table that already holds rows, changes nothing).
import { expect } from 'chai';
import { seedDemo } from '../../src/cli/demo-data.js';
import { getImpiantoFiles } from '../../src/impianti/get-impianto-files.js';
import { createImpiantoFilesRepository } from '../../src/impianti/impianto-files-repository.js';
import { createTestDb, type Knex, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';

const tables = ['impianto', 'impianto_file', 'caratteristica_gruppo', 'soggetto_recapito'] as const;

async function counts(db: Knex): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of tables) out[table] = Number((await db(table).count({ n: '*' }).first())?.['n']);
  return out;
}

forEachDialect('impianti demo seed', (dialect) => {
  let t: TestDb;
  before(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.db);
  });
  after(() => t.drop());

  const files = (id: number) => getImpiantoFiles(createImpiantoFilesRepository(t.db), id);

  it('gives an impianto a Documentazione root with sub-folders first, then files', async () => {
    const { rootFile, contents } = await files(1);
    expect(rootFile).to.include({ nome: 'Documentazione', isFolder: true, impiantoId: 1 }).and.not.have.property('folderId');
    expect(contents.map((f) => f.nome)).to.deep.equal([
      'Certificazioni', 'Manutenzione', 'Progetto',
      'Analisi combustione.pdf', 'Élenco componenti.xlsx', 'foto caldaia.jpg', "Libretto d'impianto.pdf",
    ]);
    expect(contents.every((f) => f.folderId === rootFile?.id)).to.equal(true);
  });

  it('gives one impianto a single file as root, and one no files at all', async () => {
    const fileRoot = await files(3);
    expect(fileRoot.rootFile).to.include({ nome: 'Scheda tecnica impianto fotovoltaico.pdf', isFolder: false });
    expect(fileRoot.contents).to.deep.equal([]);
    expect(await files(4)).to.deep.equal({ contents: [] });
  });

  it('stores a storage path for files only', async () => {
    const rows = await t.knex('impianto_file').select('is_folder', 'percorso_storage');
    for (const r of rows) expect(r.percorso_storage == null).to.equal(Number(r.is_folder) === 1);
  });

  it('fills the lookup tables with varied, realistic rows', async () => {
    const c = await counts(t.knex);
    expect(c['caratteristica_gruppo']).to.be.within(38, 45);
    expect(c['soggetto_recapito']).to.be.within(55, 65);
    const gruppi = await t.knex('caratteristica_gruppo').select('descrizione', 'is_disattiva');
    expect(gruppi.map((g) => g.descrizione)).to.include.members(['Caratteristiche elettriche', 'Sicurezza antincendio', 'Impianto di climatizzazione']);
    expect(new Set(gruppi.map((g) => Number(g.is_disattiva)))).to.deep.equal(new Set([0, 1]));
    expect(gruppi.some((g) => /[àèéìòù]/i.test(g.descrizione))).to.equal(true);
    const recapiti = await t.knex('soggetto_recapito').select('recapito', 'codice_esterno');
    expect(recapiti.some((r) => /@pec\./.test(r.recapito))).to.equal(true);
    expect(recapiti.some((r) => /^\+39 0\d \d{7}$/.test(r.recapito))).to.equal(true);
    expect(recapiti.some((r) => r.codice_esterno === null)).to.equal(true);
    expect(recapiti.some((r) => /^CRM-\d{5}$/.test(r.codice_esterno ?? ''))).to.equal(true);
  });

  it('changes nothing when run again', async () => {
    const before = await counts(t.knex);
    await seedDemo(t.db);
    expect(await counts(t.knex)).to.deep.equal(before);
  });

  it('fills only the tables that are still empty', async () => {
    const fresh = await createTestDb(dialect);
    try {
      await fresh.knex('caratteristica_gruppo').insert({ descrizione: 'Già presente', tipo_caratteristica_sezione_id: 1, icona_immagine_id: 1, ordine_vista: 1 });
      await seedDemo(fresh.db);
      const c = await counts(fresh.knex);
      expect(c['caratteristica_gruppo']).to.equal(1);
      expect(c['impianto']).to.be.greaterThan(3);
      expect(c['soggetto_recapito']).to.be.greaterThan(50);
      // Explicit ids must not block later inserts: the counters moved past them.
      const [id] = await fresh.knex('impianto').insert({ nome: 'Nuovo impianto' });
      expect(Number(id)).to.equal(c['impianto']! + 1);
    } finally {
      await fresh.drop();
    }
  });
});
