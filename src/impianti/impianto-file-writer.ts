// Writes impianto_file rows in chunks, with dates in the one stored form of date-time.ts.
// Used by the demo seed and by tests that build large folders.
import type { Knex } from 'knex';
import { toDbDateTime } from './date-time.js';

export interface NewImpiantoFile {
  readonly id?: number;
  readonly nome: string;
  readonly isFolder: boolean;
  readonly folderId?: number | null;
  readonly impiantoId?: number | null;
  readonly dataCreazione: Date;
  readonly dataAggiornamento: Date;
  readonly percorsoStorage?: string | null;
}

// 500 rows x 8 columns stays far below SQLite's bound-parameter limit (32766) and
// MySQL's max_allowed_packet, while keeping 10,000 rows to 20 statements.
const defaultChunk = 500;

/** Parents must come before their children: InnoDB checks the folder_id FK row by row. */
export async function insertImpiantoFiles(db: Knex, files: readonly NewImpiantoFile[], chunkSize = defaultChunk): Promise<void> {
  for (let i = 0; i < files.length; i += chunkSize) {
    await db('impianto_file').insert(files.slice(i, i + chunkSize).map(toRow));
  }
}

function toRow(f: NewImpiantoFile): Record<string, unknown> {
  return {
    ...(f.id === undefined ? {} : { id: f.id }),
    nome: f.nome,
    is_folder: f.isFolder,
    folder_id: f.folderId ?? null,
    impianto_id: f.impiantoId ?? null,
    data_creazione: toDbDateTime(f.dataCreazione),
    data_aggiornamento: toDbDateTime(f.dataAggiornamento),
    percorso_storage: f.percorsoStorage ?? null,
  };
}
