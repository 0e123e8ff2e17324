// Replacing the embedded SQLite file under its name (design.md §9), for any tool that
// must do it with the service stopped. A server holds its file open in WAL mode, and every
// WAL connection keeps a shared lock on the file while it is open, so a connection in
// exclusive locking mode cannot read it: that refusal is how "a server holds this file"
// is detected, whatever process or user the server runs as. The lock is then held
// through the swap, which is one rename, so the name always holds a whole database.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ApiError, fail, ok, type Result } from '../errors/api-error.js';
import { fsyncPath } from './sqlite-backup.js';

export const inUseMessage = (file: string) =>
  `${file} is in use by a running server: stop it first (SIGTERM, e.g. systemctl stop, or Ctrl-C on make run), then run this again`;

/**
 * The file opened by this process alone; a failure when another connection holds it.
 * `settle`: its WAL checkpointed into it and journal mode DELETE, so the file is complete
 * by itself. Close the connection to release the lock.
 */
export function takeExclusive(file: string, settle: boolean): Result<Database.Database> {
  let conn: Database.Database | undefined;
  try {
    conn = new Database(file, { fileMustExist: true });
    conn.pragma('busy_timeout = 0');
    conn.pragma('locking_mode = EXCLUSIVE');
    // The first read takes the exclusive lock (and recovers a WAL left by a killed server).
    conn.prepare('SELECT count(*) FROM sqlite_master').get();
    conn.exec('BEGIN EXCLUSIVE; COMMIT');
    if (settle) {
      conn.pragma('wal_checkpoint(TRUNCATE)');
      conn.pragma('journal_mode = DELETE');
    }
    return ok(conn);
  } catch (err) {
    conn?.close();
    const code = (err as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return fail(ApiError.of('ServiceUnavailable', inUseMessage(file)));
    return fail(ApiError.of('ServiceUnavailable', `${file} could not be opened alone: ${(err as Error).message}`));
  }
}

/** Whether a server (any other connection) holds `file` now; a missing file is held by nobody. */
export function heldByServer(file: string): Result<void> {
  if (!fs.existsSync(file)) return ok(undefined);
  const taken = takeExclusive(file, false);
  if (!taken.ok) return taken;
  taken.value.close();
  return ok(undefined);
}

/** The WAL and its index: stale once the file is in DELETE mode, and never to be applied to another file. */
function removeSideFiles(file: string): void {
  for (const side of ['-wal', '-shm']) fs.rmSync(file + side, { force: true });
}

export interface Swapped {
  /** Where the replaced database now is, beside the new one (absent when there was none). */
  readonly kept: string | undefined;
}

/**
 * Puts the complete database file `staged` (same directory) under the name `live` in one
 * rename; the replaced database keeps its content under `live.replaced-<time>`. Refused,
 * with nothing changed, while a server holds `live`.
 */
export function swapIn(live: string, staged: string, now: Date): Result<Swapped> {
  if (path.dirname(path.resolve(live)) !== path.dirname(path.resolve(staged))) throw new TypeError('swapIn: staged must be beside live');
  if (!fs.existsSync(live)) {
    fs.renameSync(staged, live);
    fsyncPath(path.dirname(path.resolve(live)));
    return ok({ kept: undefined });
  }
  const taken = takeExclusive(live, true);
  if (!taken.ok) return taken;
  const kept = `${live}.replaced-${now.toISOString().replace(/[:]/g, '-')}`;
  try {
    // A second name for the replaced file first, so that the rename below is the only step
    // that changes what `live` holds.
    try {
      fs.linkSync(live, kept);
    } catch {
      fs.copyFileSync(live, kept);
      fsyncPath(kept);
    }
    fs.renameSync(staged, live);
    fsyncPath(path.dirname(path.resolve(live)));
  } finally {
    taken.value.close();
  }
  removeSideFiles(live);
  return ok({ kept });
}
