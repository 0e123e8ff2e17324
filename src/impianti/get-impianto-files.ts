// GetImpiantoFilesRequest (design.md §6): the root file or folder of an impianto
// and, when the root is a folder, its direct contents. Metadata only, never binary data.
import { ApiError } from '../errors/api-error.js';
import { toFileMetadata, type GetImpiantoFilesResponse } from './file-metadata.js';
import type { ImpiantoFilesRepository } from './impianto-files-repository.js';

export async function getImpiantoFiles(repo: ImpiantoFilesRepository, impiantoId: number): Promise<GetImpiantoFilesResponse> {
  const lookup = await repo.findRoot(impiantoId);
  if (!lookup.found) throw ApiError.of('NotFound', `Impianto ${impiantoId} not found`);
  if (!lookup.root) return { contents: [] };
  const rootFile = toFileMetadata(lookup.root);
  const contents = rootFile.isFolder ? (await repo.listChildren(rootFile.id)).map(toFileMetadata) : [];
  return { rootFile, contents };
}
