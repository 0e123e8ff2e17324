// Mapping impianto_file rows to FileMetadataDto: property names and order, types, and
// omission of null properties (design.md §1).
import { expect } from 'chai';
import { fileColumns, toFileMetadata, type ImpiantoFileRow } from '../../src/impianti/file-metadata.js';

const row = (over: Partial<Record<keyof ImpiantoFileRow, unknown>>): ImpiantoFileRow => ({
  id: 7, nome: 'Certificazioni', is_folder: 1, folder_id: 3, impianto_id: 2,
  data_creazione: '2026-11-20 10:15:30.000', data_aggiornamento: new Date('2026-11-21T08:00:00.500Z'), ...over,
});

describe('impianti file metadata', () => {
  it('maps every column, in the spec order', () => {
    const dto = toFileMetadata(row({}));
    expect(dto).to.deep.equal({
      id: 7, nome: 'Certificazioni', isFolder: true, folderId: 3,
      dataCreazione: '2026-11-20T10:15:30.000Z', dataAggiornamento: '2026-11-21T08:00:00.500Z', impiantoId: 2,
    });
    expect(Object.keys(dto)).to.deep.equal(['id', 'nome', 'isFolder', 'folderId', 'dataCreazione', 'dataAggiornamento', 'impiantoId']);
  });

  it('omits a null folderId (a root) and a null impiantoId', () => {
    const dto = toFileMetadata(row({ folder_id: null, impianto_id: null }));
    expect(dto).to.not.have.any.keys('folderId', 'impiantoId');
  });

  const folderFlags: Array<[unknown, boolean]> = [[1, true], [0, false], ['1', true], ['0', false], [true, true], [false, false]];
  for (const [given, want] of folderFlags) {
    it(`reads is_folder ${JSON.stringify(given)} as ${want}`, () => expect(toFileMetadata(row({ is_folder: given })).isFolder).to.equal(want));
  }

  it('turns driver strings into numbers', () => {
    expect(toFileMetadata(row({ id: '12', folder_id: '3', impianto_id: '4' }))).to.include({ id: 12, folderId: 3, impiantoId: 4 });
  });

  it('never selects the storage path', () => {
    expect(fileColumns).to.not.include('percorso_storage');
  });
});
