// The impianto-files repository on each engine: root selection, the children's order
// (identical on MySQL and SQLite), and at most two queries whatever the folder size.
import { expect } from 'chai';
import { watchReads } from '../../src/db/reads/select.js';
import { fold } from '../../src/db/fold.js';
import { createImpiantoFilesRepository } from '../../src/impianti/impianto-files-repository.js';
import { insertImpiantoFiles, type NewImpiantoFile } from '../../src/impianti/impianto-file-writer.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';

const at = new Date('2026-11-20T10:15:30.000Z');
const node = (id: number, nome: string, isFolder: boolean, folderId: number | null, impiantoId: number | null): NewImpiantoFile =>
  ({ id, nome, isFolder, folderId, impiantoId, dataCreazione: at, dataAggiornamento: at, percorsoStorage: isFolder ? null : `s/${id}` });

forEachDialect('impianti files repository', (dialect) => {
  let t: TestDb;
  before(async () => {
    t = await createTestDb(dialect);
    await t.knex('impianto').insert([1, 2, 3, 4].map((id) => ({ id, nome: `Impianto ${id}` })));
    await insertImpiantoFiles(t.knex, [
      // Impianto 1 has two rows with folder_id NULL: the lowest id is the root.
      node(10, 'Documentazione', true, null, 1), node(11, 'Vecchia radice', true, null, 1),
      // Children inserted out of order; ties after folding ("Àrea", "area", "AREA") fall back to id.
      node(20, 'Zeta', false, 10, 1), node(21, 'Àrea', false, 10, null), node(22, 'beta', true, 10, 1),
      node(23, 'area', false, 10, 1), node(24, 'ällegato', false, 10, 1), node(25, 'Ómega', true, 10, 1),
      node(26, 'area10', false, 10, 1), node(27, 'area 2', false, 10, 1), node(28, 'AREA', false, 10, 1),
      node(29, 'Alfa', true, 10, 1), node(30, 'Nipote', false, 22, 1),
      // Impianto 2: the root is a file. Impianto 3: no files. Impianto 4: an empty root folder.
      node(40, 'Scheda impianto.pdf', false, null, 2), node(50, 'Documentazione', true, null, 4),
    ]);
  });
  after(() => t.drop());

  const repo = () => createImpiantoFilesRepository(t.db);

  it('finds no impianto for an unknown id', async () => {
    expect(await repo().findRoot(999)).to.deep.equal({ found: false });
  });

  it('finds an impianto without files, with no root', async () => {
    expect(await repo().findRoot(3)).to.deep.equal({ found: true, root: undefined });
  });

  it('takes the lowest id among rows with folder_id NULL as the root', async () => {
    const lookup = await repo().findRoot(1);
    expect(lookup.found && Number(lookup.root?.id)).to.equal(10);
  });

  it('finds a file root', async () => {
    const lookup = await repo().findRoot(2);
    expect(lookup.found && lookup.root && [Number(lookup.root.id), Number(lookup.root.is_folder)]).to.deep.equal([40, 0]);
  });

  it('lists folders first, then nome case- and accent-insensitively, then id', async () => {
    const names = (await repo().listChildren(10)).map((r) => r.nome);
    expect(names).to.deep.equal(['Alfa', 'beta', 'Ómega', 'ällegato', 'Àrea', 'area', 'AREA', 'area 2', 'area10', 'Zeta']);
  });

  it('lists nothing for an empty folder', async () => {
    expect(await repo().listChildren(50)).to.deep.equal([]);
  });

  it('never selects percorso_storage', async () => {
    const lookup = await repo().findRoot(2);
    const children = await repo().listChildren(10);
    for (const row of [lookup.found ? lookup.root : undefined, ...children]) expect(row).to.not.have.property('percorso_storage');
  });

  it('answers a folder of 10,000 children in two queries, in the same order as fold()', async function () {
    this.timeout(60_000);
    await t.knex('impianto').insert({ id: 5, nome: 'Impianto grande' });
    await insertImpiantoFiles(t.knex, [node(100, 'Archivio', true, null, 5)]);
    const many = Array.from({ length: 10_000 }, (_, i) => {
      const n = (i * 7919) % 10_000;
      // Letters, digits and spaces only, where both engines promise the same order (design.md §7).
      const nome = `${['Relazione', 'rélazione', 'Verbale', 'ÀLLEGATO'][n % 4]} ${String(n % 2500).padStart(4, '0')}`;
      return node(1000 + i, nome, i % 10 === 0, 100, 5);
    });
    await insertImpiantoFiles(t.knex, many);
    const sql: string[] = [];
    const stop = watchReads(t.db, (q) => sql.push(q.sql));
    try {
      const lookup = await repo().findRoot(5);
      const children = await repo().listChildren(Number(lookup.found && lookup.root?.id));
      expect(sql).to.have.length(2);
      const expected = [...many].sort((a, b) =>
        Number(b.isFolder) - Number(a.isFolder) || cmp(fold(a.nome), fold(b.nome)) || a.id! - b.id!);
      expect(children.map((r) => Number(r.id))).to.deep.equal(expected.map((f) => f.id));
    } finally {
      stop();
    }
  });
});

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
