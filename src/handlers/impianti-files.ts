// HTTP handler of GetImpiantoFilesRequest: delegates to src/impianti. The edge has already
// authenticated the caller and validated ImpiantoId against its schema (an int32 of at
// least 1), so the handler receives a number it can use as it is.
import type { Deps } from '../deps.js';
import type { HandlerMap } from '../http/operation.js';
import { getImpiantoFiles } from '../impianti/get-impianto-files.js';
import { createImpiantoFilesRepository } from '../impianti/impianto-files-repository.js';

export function createImpiantiHandlers(deps: Deps): Pick<HandlerMap, 'GetImpiantoFilesRequest'> {
  const repo = createImpiantoFilesRepository(deps.db, { timeoutMs: deps.config.queryTimeoutMs });
  return {
    GetImpiantoFilesRequest: async ({ dto }) => ({ body: await getImpiantoFiles(repo, dto.impiantoId) }),
  };
}
