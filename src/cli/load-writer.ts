// What `npm run load` asks of an engine's bulk path: batches of checked rows written inside
// one transaction, and the refusal of a row turned into a problem on its line. Each engine
// has its own (load-writer-sqlite.ts, load-writer-mysql.ts, load-writer-infile.ts).
import { rowRefusal } from '../db/driver-errors.js';
import type { LoadProblem } from './load-problem.js';
import type { Column, LoadRow } from './load-rows.js';

export interface BulkWriter {
  /** Most rows, and bytes of values, one batch holds. */
  readonly batchRows: number;
  readonly batchBytes: number;
  /** Indexes dropped for the load and built at its end, because the table was empty. */
  readonly deferredIndexes: number;
  /** Writes a batch; a refused row comes back as the problem on its line, and nothing more is written. */
  write(rows: readonly LoadRow[]): Promise<LoadProblem | undefined>;
  /** Builds any deferred index and commits; a refusal here (a full disk) names `lastLine`. */
  commit(lastLine: number): Promise<LoadProblem | undefined>;
  rollback(): Promise<void>;
}

export interface Target {
  readonly table: string;
  readonly columns: readonly Column[];
}

/**
 * The database's refusal of the row on `line`, in words without the driver's text.
 * `committed` says whether a row with this id was in the table before the load began, so a
 * duplicate is told apart from one earlier in the same file.
 */
export async function refusal(err: unknown, line: number, id: unknown, committed: (id: number) => Promise<boolean>): Promise<LoadProblem> {
  switch (rowRefusal(err)) {
    case 'duplicate':
      if (typeof id !== 'number') return { line, message: 'a duplicate of a unique value' };
      return { line, message: (await committed(id)) ? `id ${id} is already in the table` : `id ${id} appears earlier in this file` };
    case 'foreign-key': return { line, message: 'names a parent row (folder_id or impianto_id) that does not exist' };
    case 'disk-full': return { line, message: 'the database\'s disk is full; nothing was written' };
    case 'too-long': return { line, message: 'a value is longer than its column allows' };
    default: return { line, message: `refused by the database (${String((err as { code?: unknown }).code ?? 'error')})` };
  }
}

/** The bytes a row's values take as SQL, near enough to size a batch. */
export function rowBytes(values: readonly unknown[]): number {
  let n = 4;
  for (const v of values) n += typeof v === 'string' ? v.length * 2 + 3 : 12;
  return n;
}
