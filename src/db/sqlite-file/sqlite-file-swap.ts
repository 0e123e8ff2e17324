// Replaces the embedded SQLite file by one built from it (a compacted copy, a restored
// backup) with one atomic rename, and only while no other connection has the file open:
// a server holding it would go on writing to the replaced file, and its writes would be
// lost. The detection holds for any process or user on the host (design.md §8).
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { fsyncPath, openSqliteFile } from './sqlite-file.js';

export type SwapOutcome =
  /** `kept`: where the replaced database now is, beside the new one, when asked to keep it. */
  | { readonly ok: true; readonly bytesBefore: number; readonly bytesAfter: number; readonly kept?: string }
  | { readonly ok: false; readonly error: string };

/** Writes the replacement at `target` from the held source; answers a problem to give up. */
export type BuildReplacement = (source: Database.Database, target: string) => string | undefined;

export const heldMessage = (file: string) =>
  `${file} is in use by a running server: stop it first (SIGTERM, e.g. systemctl stop, or Ctrl-C on make run), then run this again; nothing was changed`;

export interface SwapOptions {
  /** Keeps the replaced database's content under `<file>.replaced-<time>` beside the new one. */
  readonly keepReplacedAt?: Date;
}

export function swapSqliteFile(given: string, build: BuildReplacement, options: SwapOptions = {}): SwapOutcome {
  const opened = openSqliteFile(given, { readonly: false, busyTimeoutMs: 0 });
  if (!opened.ok) return opened;
  const conn = opened.conn;
  // Through a symbolic link, the file it points to is the one replaced.
  const file = fs.realpathSync(given);
  const target = `${file}.swap-${process.pid}`;
  let oldFd: number | undefined;
  let kept: string | undefined;
  let swapped = false;
  try {
    // Every connection to a WAL file holds a shared lock for as long as it is open, and
    // leaving WAL needs them all gone: the switch is the test, and the exclusive lock it
    // takes is kept (locking_mode) until the rename is done.
    conn.pragma('locking_mode = EXCLUSIVE');
    if (!leaveWal(conn)) return { ok: false, error: heldMessage(given) };
    const bytesBefore = fs.statSync(file).size;
    fs.rmSync(target, { force: true });
    let problem: string | undefined;
    try {
      problem = build(conn, target) ?? walMode(target) ?? sameOwnerAndMode(file, target);
    } catch (err) {
      problem = (err as Error).message;
    }
    if (problem !== undefined) {
      conn.pragma('journal_mode = WAL');
      return { ok: false, error: `${problem}; nothing was changed` };
    }
    fsyncPath(target);
    if (options.keepReplacedAt) {
      // A copy, not a second link: the old file's header is wiped below. Out of WAL mode
      // under the exclusive lock, the file holds every commit by itself.
      kept = `${file}.replaced-${options.keepReplacedAt.toISOString().replace(/:/g, '-')}`;
      fs.copyFileSync(file, kept, fs.constants.COPYFILE_EXCL);
      fsyncPath(kept);
    }
    oldFd = fs.openSync(file, 'r+');
    fs.renameSync(target, file);
    swapped = true;
    fsyncPath(path.dirname(path.resolve(file)));
    // A process that opened the old file meanwhile and waits for its lock must fail
    // ("not a database") rather than write to a file no longer in the directory.
    fs.writeSync(oldFd, Buffer.alloc(100), 0, 100, 0);
    return { ok: true, bytesBefore, bytesAfter: fs.statSync(file).size, ...(kept === undefined ? {} : { kept }) };
  } finally {
    conn.close();
    // Only after SQLite let go: closing any descriptor of a file drops the process's POSIX locks on it.
    if (oldFd !== undefined) fs.closeSync(oldFd);
    if (!swapped) {
      fs.rmSync(target, { force: true });
      if (kept !== undefined) fs.rmSync(kept, { force: true });
    }
  }
}

function leaveWal(conn: Database.Database): boolean {
  try {
    return conn.pragma('journal_mode = DELETE', { simple: true }) === 'delete';
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return false;
    throw err;
  }
}

/** The replacement keeps the service's journal mode, so readers never wait for a writer. */
function walMode(target: string): string | undefined {
  const opened = openSqliteFile(target, { readonly: false });
  if (!opened.ok) return opened.error;
  opened.conn.pragma('journal_mode = WAL');
  opened.conn.close();
  return undefined;
}

/** The service's user must still be able to write the file, whoever ran the swap. */
function sameOwnerAndMode(file: string, target: string): string | undefined {
  const was = fs.statSync(file);
  const now = fs.statSync(target);
  fs.chmodSync(target, was.mode & 0o7777);
  if (was.uid === now.uid && was.gid === now.gid) return undefined;
  try {
    fs.chownSync(target, was.uid, was.gid);
    return undefined;
  } catch (err) {
    return `the copy cannot be given the file's owner ${was.uid}:${was.gid} (${(err as NodeJS.ErrnoException).code}): run this as that user`;
  }
}
