// HTTP handler of GetImpiantoFilesRequest: delegates to src/impianti. The edge has already
// authenticated the caller and validated ImpiantoId against its schema (an int32 of at
// least 1), so the handler receives a number it can use as it is. Both of its queries run
// on the one database the read router picks (a replica, or the primary; design.md §12).
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import type { Reads } from '../db/replicas.js';
import type { HandlerMap, Response } from '../http/operation.js';
import { getImpiantoFiles } from '../impianti/get-impianto-files.js';
import { createImpiantoFilesRepository, type ImpiantoFilesRepository } from '../impianti/impianto-files-repository.js';

export function createImpiantiHandlers(deps: { reads: Reads; config: Config }): Pick<HandlerMap, 'GetImpiantoFilesRequest'> {
  // One repository per database: each renders its statements once for its own connections.
  const repos = new WeakMap<Knex, ImpiantoFilesRepository>();
  const repoOf = (db: Knex): ImpiantoFilesRepository => {
    let repo = repos.get(db);
    if (!repo) repos.set(db, (repo = createImpiantoFilesRepository(db, { timeoutMs: deps.config.queryTimeoutMs })));
    return repo;
  };
  return {
    GetImpiantoFilesRequest: async ({ dto }): Promise<Response<'GetImpiantoFilesRequest'>> => ({ body: await deps.reads.run((db) => getImpiantoFiles(repoOf(db), dto.impiantoId)) }),
  };
}
