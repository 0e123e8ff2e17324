// HTTP handler of GetImpiantoFilesRequest: checks the id it is given and delegates to
// src/impianti. The edge has already authenticated the caller and validated ImpiantoId.
import type { Deps } from '../deps.js';
import { ApiError } from '../errors/api-error.js';
import type { OperationHandler } from '../http/operation.js';
import { getImpiantoFiles } from '../impianti/get-impianto-files.js';
import { createImpiantoFilesRepository } from '../impianti/impianto-files-repository.js';

const int32Min = -(2 ** 31);
const int32Max = 2 ** 31 - 1;

export function createImpiantiHandlers(deps: Deps): Record<'GetImpiantoFilesRequest', OperationHandler> {
  const repo = createImpiantoFilesRepository(deps.db, { timeoutMs: deps.config.queryTimeoutMs });
  return {
    GetImpiantoFilesRequest: async (request) => ({ body: await getImpiantoFiles(repo, impiantoIdOf(request.dto['impiantoId'])) }),
  };
}

/** Defence in depth: a bad id must be a 400 here too, never reach SQL (design.md §3, §6). */
function impiantoIdOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < int32Min || value > int32Max) {
    throw ApiError.field('InvalidType', 'ImpiantoId', "'Impianto Id' must be an int32.");
  }
  if (value < 1) throw ApiError.field('InvalidValue', 'ImpiantoId', "'Impianto Id' must be at least 1.");
  return value;
}
