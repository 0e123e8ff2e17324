// Opens the embedded SQLite file outside the service (the db, backup and restore tools), with
// the service's fold() registered, because its expression indexes call it: integrity_check,
// VACUUM and any write to a folded column fail without it (design.md §8). The tools' reads
// leave the file's side files as they were, and their renames are made durable here.
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { prepareSqlite } from '../connect.js';

export interface OpenOptions {
  /** Writes are refused by SQLite itself, not by this code. */
  readonly readonly: boolean;
  /** Milliseconds to wait for another connection's lock (0: fail at once). */
  readonly busyTimeoutMs?: number;
}

export type Opened = { readonly ok: true; readonly conn: Database.Database } | { readonly ok: false; readonly error: string };

/** Never creates a file: a mistyped path is an error, not a new empty database. */
export function openSqliteFile(file: string, options: OpenOptions): Opened {
  if (!fs.existsSync(file)) return { ok: false, error: `${file}: no such file` };
  if (!fs.statSync(file).isFile()) return { ok: false, error: `${file}: not a file` };
  let conn: Database.Database | undefined;
  try {
    conn = new Database(file, { readonly: options.readonly, fileMustExist: true });
    conn.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
    if (!options.readonly) conn.pragma('foreign_keys = ON');
    prepareSqlite(conn);
    // The header is read on first use: a file that is no database fails here, not later.
    conn.pragma('schema_version', { simple: true });
    return { ok: true, conn };
  } catch (err) {
    conn?.close();
    return { ok: false, error: `${file}: ${(err as Error).message}` };
  }
}

/** The WAL and index files of `file` that do not exist yet. */
export const absentSideFiles = (file: string): string[] => ['-wal', '-shm'].map((s) => file + s).filter((side) => !fs.existsSync(side));

/**
 * Removes the side files a read-only connection to a file in WAL mode created and cannot
 * delete, so a check or a copy leaves its source as it found it. A -wal holding frames
 * belongs to a writer that came meanwhile, and stays with its index.
 */
export function removeCreatedSideFiles(file: string, created: readonly string[]): void {
  const walInUse = (fs.statSync(file + '-wal', { throwIfNoEntry: false })?.size ?? 0) > 0;
  if (!walInUse) for (const side of created) fs.rmSync(side, { force: true });
}

/** fsync of a file or a directory (a rename is durable once its directory is synced). */
export function fsyncPath(p: string): void {
  const fd = fs.openSync(p, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
