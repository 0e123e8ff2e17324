// GetImpiantoFilesRequest called directly on each engine: the response body, NotFound,
// the id guard, and that no storage path ever reaches the body.
import { expect } from 'chai';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { ApiError } from '../../src/errors/api-error.js';
import { primaryOnly } from '../../src/db/reads/replicas.js';
import { createImpiantiHandlers } from '../../src/handlers/impianti-files.js';
import type { Request } from '../../src/http/operation.js';
import { insertImpiantoFiles, type NewImpiantoFile } from '../../src/impianti/impianto-file-writer.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';

const created = new Date('2026-11-20T10:15:30.000Z');
const updated = new Date('2026-11-21T08:00:00.250Z');
const secret = (id: number) => `segreto/percorso-${id}.bin`;
const node = (id: number, nome: string, isFolder: boolean, folderId: number | null, impiantoId: number): NewImpiantoFile =>
  ({ id, nome, isFolder, folderId, impiantoId, dataCreazione: created, dataAggiornamento: updated, percorsoStorage: secret(id) });

// The handler receives the DTO the edge validated: ImpiantoId is an int32 of at least 1 by
// its schema (bad ids are the edge's 400s: test/http/impianti-files-access.test.ts).
const request = (impiantoId: number): Request<'GetImpiantoFilesRequest'> => ({
  operationId: 'GetImpiantoFilesRequest', dto: { impiantoId }, format: 'json', fieldErrors: [], clientIp: '127.0.0.1', bearer: () => null, nextPageUrl: () => undefined, announce: () => {},
  principal: { userId: '1', sessionId: 's', userName: 'tecnico', roles: ['ApiUser'] },
});

forEachDialect('impianti files handler', (dialect) => {
  let t: TestDb;
  let handle: (impiantoId: number) => Promise<unknown>;
  before(async () => {
    t = await createTestDb(dialect);
    await t.knex('impianto').insert([1, 2, 3].map((id) => ({ id, nome: `Impianto ${id}` })));
    await insertImpiantoFiles(t.knex, [
      node(1, 'Documentazione', true, null, 1), node(2, 'Manutenzione', true, 1, 1),
      node(3, 'Dichiarazione di conformità.pdf', false, 1, 1), node(4, 'Rapporto 2025.pdf', false, 2, 1),
      node(5, 'Scheda impianto.pdf', false, null, 2),
    ]);
    const deps = { config: loadConfig({}), db: t.db, clock: () => created, logger: pino({ level: 'silent' }) };
    const handlers = createImpiantiHandlers({ ...deps, reads: primaryOnly(t.db) });
    handle = async (id) => (await handlers.GetImpiantoFilesRequest(request(id))).body;
  });
  after(() => t.drop());

  const dates = { dataCreazione: '2026-11-20T10:15:30.000Z', dataAggiornamento: '2026-11-21T08:00:00.250Z' };

  it('returns the root folder and its direct children, the root without folderId', async () => {
    expect(await handle(1)).to.deep.equal({
      rootFile: { id: 1, nome: 'Documentazione', isFolder: true, ...dates, impiantoId: 1 },
      contents: [
        { id: 2, nome: 'Manutenzione', isFolder: true, folderId: 1, ...dates, impiantoId: 1 },
        { id: 3, nome: 'Dichiarazione di conformità.pdf', isFolder: false, folderId: 1, ...dates, impiantoId: 1 },
      ],
    });
  });

  it('returns a file root with empty contents', async () => {
    expect(await handle(2)).to.deep.equal({ rootFile: { id: 5, nome: 'Scheda impianto.pdf', isFolder: false, ...dates, impiantoId: 2 }, contents: [] });
  });

  it('returns only empty contents for an impianto without files', async () => {
    expect(await handle(3)).to.deep.equal({ contents: [] });
  });

  it('never puts a storage path in the body', async () => {
    const text = JSON.stringify([await handle(1), await handle(2)]);
    for (const id of [1, 2, 3, 4, 5]) expect(text).to.not.include(secret(id));
    expect(text).to.not.match(/percorso/i);
  });

  it('throws NotFound for an unknown impianto', async () => {
    const error = await handle(404).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(ApiError).and.to.include({ code: 'NotFound', status: 404, message: 'Impianto 404 not found' });
  });

  it('turns a driver failure into a generic ApiError, without SQL or driver text', async () => {
    const bare = await createTestDb(dialect, { migrate: false });
    try {
      const deps = { config: loadConfig({}), db: bare.db, clock: () => created, logger: pino({ level: 'silent' }) };
      const error = await createImpiantiHandlers({ ...deps, reads: primaryOnly(deps.db) }).GetImpiantoFilesRequest(request(1)).then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(ApiError).and.to.include({ code: 'InternalServerError', status: 500 });
      expect((error as ApiError).message).to.not.match(/impianto|select|table/i);
    } finally {
      await bare.drop();
    }
  });
});
