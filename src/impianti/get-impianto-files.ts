// GetImpiantoFilesRequest (design.md §6): the root file or folder of an impianto
// and, when the root is a folder, its direct contents. Metadata only, never binary data.
import { versionsUnseen, type VersionsSeen } from '../db/table-versions/table-versions.js';
import { ApiError } from '../errors/api-error.js';
import { toFileMetadata, type GetImpiantoFilesResponse } from './file-metadata.js';
import type { ImpiantoFilesRepository } from './impianto-files-repository.js';

export async function getImpiantoFiles(repo: ImpiantoFilesRepository, impiantoId: number): Promise<GetImpiantoFilesResponse> {
  return (await readImpiantoFiles(repo, impiantoId, [])).body;
}

/** The same, with the versions of `versioned` tables read in its first statement (db/table-versions/table-versions.ts). */
export async function readImpiantoFiles(repo: ImpiantoFilesRepository, impiantoId: number, versioned: readonly string[]): Promise<{ body: GetImpiantoFilesResponse; versions: VersionsSeen }> {
  const lookup = await repo.findRoot(impiantoId, versioned);
  if (!lookup.found) throw ApiError.of('NotFound', `Impianto ${impiantoId} not found`);
  const versions = lookup.versions ?? versionsUnseen;
  if (!lookup.root) return { body: { contents: [] }, versions };
  const rootFile = toFileMetadata(lookup.root);
  const contents = rootFile.isFolder ? (await repo.listChildren(rootFile.id)).map(toFileMetadata) : [];
  return { body: { rootFile, contents }, versions };
}
