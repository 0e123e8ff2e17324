// GET /impianti/{ImpiantoId}/files over HTTP on each engine: the body's shape, order and date
// format, a 10,000-child folder, the edge cases of the root, and no storage path ever.
import { expect } from 'chai';
import { fold } from '../../src/db/fold.js';
import { insertImpiantoFiles, type NewImpiantoFile } from '../../src/impianti/impianto-file-writer.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

const created = new Date('2026-11-20T10:15:30.000Z');
const updated = new Date('2026-11-20T11:00:00.042Z');
const storage = (id: number) => `archivio/riservato/f${id}.bin`;
const node = (id: number, nome: string, isFolder: boolean, folderId: number | null, impiantoId: number): NewImpiantoFile =>
  ({ id, nome, isFolder, folderId, impiantoId, dataCreazione: created, dataAggiornamento: updated, percorsoStorage: storage(id) });

forEachDialect('GET /impianti/{ImpiantoId}/files content', (dialect) => {
  let s: TestServer;
  let token: string;
  const get = async (id: number) => {
    const res = await s.request('GET', `/impianti/${id}/files`, { token });
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    return res;
  };

  before(async () => {
    s = await startServer({ dialect });
    token = await s.tokenFor(['ApiUser']);
    await s.knex('impianto').insert([1, 2, 3, 4].map((id) => ({ id, nome: `Impianto ${id}` })));
    await insertImpiantoFiles(s.knex, [
      node(1, 'Documentazione', true, null, 1),
      node(2, 'Zeta', false, 1, 1), node(3, 'Àrea', false, 1, 1), node(4, 'Manutenzione', true, 1, 1), node(5, 'area', false, 1, 1),
      node(6, 'ällegato', false, 1, 1), node(7, 'Certificazioni', true, 1, 1), node(8, 'AREA', false, 1, 1), node(9, 'Rapporto.pdf', false, 4, 1),
      node(10, 'Scheda impianto.pdf', false, null, 2),
    ]);
  });
  after(() => s.close());

  it('returns the root folder without folderId and its children in order', async () => {
    const { body } = await get(1);
    expect(body.rootFile).to.deep.equal({
      id: 1, nome: 'Documentazione', isFolder: true,
      dataCreazione: '2026-11-20T10:15:30.000Z', dataAggiornamento: '2026-11-20T11:00:00.042Z', impiantoId: 1,
    });
    expect(body.contents.map((f: { nome: string }) => f.nome)).to.deep.equal(['Certificazioni', 'Manutenzione', 'ällegato', 'Àrea', 'area', 'AREA', 'Zeta']);
    expect(body.contents[0]).to.deep.equal({
      id: 7, nome: 'Certificazioni', isFolder: true, folderId: 1,
      dataCreazione: '2026-11-20T10:15:30.000Z', dataAggiornamento: '2026-11-20T11:00:00.042Z', impiantoId: 1,
    });
  });

  it('writes every date as ISO 8601 UTC with milliseconds', async () => {
    const { body } = await get(1);
    for (const f of [body.rootFile, ...body.contents]) {
      expect(f.dataCreazione).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(f.dataAggiornamento).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
  });

  it('returns a file root with empty contents', async () => {
    const { body } = await get(2);
    expect(body).to.deep.equal({
      rootFile: { id: 10, nome: 'Scheda impianto.pdf', isFolder: false, dataCreazione: '2026-11-20T10:15:30.000Z', dataAggiornamento: '2026-11-20T11:00:00.042Z', impiantoId: 2 },
      contents: [],
    });
  });

  it('returns only empty contents for an impianto with no files', async () => {
    expect((await get(3)).body).to.deep.equal({ contents: [] });
  });

  it('never sends a storage path or binary data', async () => {
    const texts = [(await get(1)).text, (await get(2)).text];
    for (const text of texts) {
      for (let id = 1; id <= 10; id++) expect(text).to.not.include(storage(id));
      expect(text).to.not.match(/percorso|storage/i);
    }
  });

  it('answers a folder of 10,000 children completely and in order', async function () {
    this.timeout(60_000);
    const many = Array.from({ length: 10_000 }, (_, i) => {
      const n = (i * 7919) % 10_000;
      const nome = `${['Verbale', 'vèrbale', 'Foto', 'ÉLENCO'][n % 4]} ${String(n % 3000).padStart(4, '0')}`;
      return node(1000 + i, nome, i % 25 === 0, 100, 4);
    });
    await insertImpiantoFiles(s.knex, [node(100, 'Archivio', true, null, 4), ...many]);
    const { body } = await get(4);
    const want = [...many].sort((a, b) => Number(b.isFolder) - Number(a.isFolder) || cmp(fold(a.nome), fold(b.nome)) || a.id! - b.id!);
    expect(body.contents).to.have.length(10_000);
    expect(body.contents.map((f: { id: number }) => f.id)).to.deep.equal(want.map((f) => f.id));
    expect(body.contents.every((f: { folderId: number }) => f.folderId === 100)).to.equal(true);
  });
});

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
