// Dates of impianto_file as each engine may hold them (written by the service, by knex with
// a JS Date, or loaded by an operator as text or epoch ms) all come out in one API form.
import { expect } from 'chai';
import type { Dialect } from '../../src/db/dialect.js';
import { toFileMetadata } from '../../src/impianti/file-metadata.js';
import { createImpiantoFilesRepository } from '../../src/impianti/impianto-files-repository.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';

// [name, stored value, API value, engines where an operator could store it this way]
const stored: Array<[string, unknown, string, readonly Dialect[]]> = [
  ['the service text form', '2026-11-20 10:15:30.000', '2026-11-20T10:15:30.000Z', ['mysql', 'sqlite']],
  ['a JS Date through knex', new Date('2026-11-20T10:15:30.045Z'), '2026-11-20T10:15:30.045Z', ['mysql', 'sqlite']],
  ['text without fraction', '2026-11-20 10:15:30', '2026-11-20T10:15:30.000Z', ['mysql', 'sqlite']],
  ['text with microseconds', '2026-11-20 10:15:30.123456', '2026-11-20T10:15:30.123Z', ['mysql', 'sqlite']],
  ['epoch milliseconds', 1795169730000, '2026-11-20T10:15:30.000Z', ['sqlite']],
  ['ISO text in UTC', '2026-11-20T10:15:30.500Z', '2026-11-20T10:15:30.500Z', ['sqlite']],
];

forEachDialect('impianti files dates', (dialect) => {
  let t: TestDb;
  before(async () => {
    t = await createTestDb(dialect);
    await t.knex('impianto').insert({ id: 1, nome: 'Impianto date' });
    await t.knex('impianto_file').insert({ id: 1, nome: 'Radice', is_folder: true, impianto_id: 1, data_creazione: '2026-01-01 00:00:00', data_aggiornamento: '2026-01-01 00:00:00' });
  });
  after(() => t.drop());

  stored.forEach(([name, value, want, engines], i) => {
    if (!engines.includes(dialect)) return;
    it(`reads ${name} as ${want}`, async () => {
      const id = 10 + i;
      await t.knex('impianto_file').insert({ id, nome: name, is_folder: false, folder_id: 1, impianto_id: 1, data_creazione: value, data_aggiornamento: value });
      const row = (await createImpiantoFilesRepository(t.db).listChildren(1)).find((r) => Number(r.id) === id);
      expect(row, 'row').to.not.equal(undefined);
      expect(toFileMetadata(row!)).to.include({ dataCreazione: want, dataAggiornamento: want });
    });
  });
});
