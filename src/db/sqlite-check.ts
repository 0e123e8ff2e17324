// Whether a file is a sound database of this service that this build can serve
// (design.md §9): a SQLite file that passes integrity_check and holds this service's
// migrations, none newer than the build knows. Backups check their copy with it before
// they say done, and a restore checks its source; the file is opened read-only.
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { ApiError, fail, ok, type Result } from '../errors/api-error.js';
import { fold, foldFunction } from './fold.js';
import { migrationNames } from './migrate.js';

export interface SoundDatabase {
  /** How many of this build's migrations the file holds. */
  readonly migrationLevel: number;
  readonly bytes: number;
}

const header = Buffer.from('SQLite format 3\0', 'latin1');
const bad = (message: string) => fail<SoundDatabase>(ApiError.field('InvalidValue', 'FILE', message));

function startsWithHeader(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(header.length);
    return fs.readSync(fd, head, 0, head.length, 0) === head.length && head.equals(header);
  } finally {
    fs.closeSync(fd);
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

export function checkSqliteFile(file: string): Result<SoundDatabase> {
  const created = absentSideFiles(file);
  try {
    return checkFile(file);
  } finally {
    removeCreatedSideFiles(file, created);
  }
}

function checkFile(file: string): Result<SoundDatabase> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return bad(`${file} does not exist`);
  }
  if (!stat.isFile()) return bad(`${file} is not a file`);
  if (!startsWithHeader(file)) return bad(`${file} is not a SQLite database`);
  let conn: Database.Database | undefined;
  try {
    conn = new Database(file, { readonly: true, fileMustExist: true });
    // integrity_check compares each index with its table, and the search indexes hold fold(column).
    conn.function(foldFunction, { deterministic: true }, (v: unknown) => (typeof v === 'string' ? fold(v) : v));
    const problems = (conn.pragma('integrity_check(5)') as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
    if (problems[0] !== 'ok') return bad(`${file} fails the integrity check: ${problems.join('; ')}`);
    return migrationLevelOf(conn, file, stat.size);
  } catch (err) {
    // SQLITE_CORRUPT, SQLITE_NOTADB: a header over a damaged body.
    return bad(`${file} is not a readable SQLite database (${(err as Error).message})`);
  } finally {
    conn?.close();
  }
}

function migrationLevelOf(conn: Database.Database, file: string, bytes: number): Result<SoundDatabase> {
  const table = conn.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'knex_migrations'").get();
  if (!table) return bad(`${file} is not a database of impianti-api (it has no migrations table)`);
  const names = (conn.prepare('SELECT name FROM knex_migrations ORDER BY id').all() as Array<{ name: string }>).map((r) => r.name);
  if (names.length === 0 || names[0] !== migrationNames[0]) return bad(`${file} is not a database of impianti-api (its first migration is ${names[0] ?? 'missing'})`);
  const unknown = names.filter((n) => !migrationNames.includes(n));
  if (unknown.length > 0) {
    return bad(`${file} comes from a newer migration level than this build (${unknown.join(', ')} unknown; this build knows ${migrationNames.length}): run a build that knows them`);
  }
  return ok({ migrationLevel: names.length, bytes });
}
