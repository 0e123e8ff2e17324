// FileMetadataDto (design.md §6) and its mapping from an impianto_file row. The row type lists
// exactly the columns the API may read: percorso_storage is deliberately absent, so no
// query built from `fileColumns` can ever carry a storage path to a client.
import { toIsoUtc } from './date-time.js';

export interface FileMetadataDto {
  readonly id: number;
  readonly nome: string;
  readonly isFolder: boolean;
  readonly folderId?: number;
  readonly dataCreazione: string;
  readonly dataAggiornamento: string;
  readonly impiantoId?: number;
}

export interface GetImpiantoFilesResponse {
  readonly rootFile?: FileMetadataDto;
  readonly contents: readonly FileMetadataDto[];
}

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
