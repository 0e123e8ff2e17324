// FileMetadataDto (design.md §6) and its mapping from an impianto_file row. The row type lists
// exactly the columns the API may read: percorso_storage is deliberately absent, so no
// query built from `fileColumns` can ever carry a storage path to a client.
import type { components } from '../../generated/api.js';
import { toIsoUtc } from './date-time.js';

/** The contract's own types: a change to the schema is a compile error in the mapping below. */
export type FileMetadataDto = components['schemas']['FileMetadataDto'];
export type GetImpiantoFilesResponse = Omit<components['schemas']['GetImpiantoFilesResponse'], 'responseStatus'>;

/** The only impianto_file columns ever selected. */
export const fileColumns = ['id', 'nome', 'is_folder', 'folder_id', 'impianto_id', 'data_creazione', 'data_aggiornamento'] as const;

export type ImpiantoFileRow = { readonly [K in (typeof fileColumns)[number]]: unknown };

/** Null properties are omitted (design.md §1), so a root carries no folderId. */
export function toFileMetadata(row: ImpiantoFileRow): FileMetadataDto {
  return {
    id: Number(row.id),
    nome: String(row.nome),
    // tinyint(1) on MySQL, 0/1 on SQLite; operators may also have loaded '0'/'1' text.
    isFolder: Number(row.is_folder) !== 0,
    ...(row.folder_id == null ? {} : { folderId: Number(row.folder_id) }),
    dataCreazione: toIsoUtc(row.data_creazione),
    dataAggiornamento: toIsoUtc(row.data_aggiornamento),
    ...(row.impianto_id == null ? {} : { impiantoId: Number(row.impianto_id) }),
  };
}
