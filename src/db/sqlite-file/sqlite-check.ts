// The health of the embedded file (design.md §8): SQLite's own integrity_check, which needs
// fold() for the expression indexes, foreign_key_check, and the migration level against the
// one this build expects. An operator reads every problem (db check); a backup checks its
// copy and a restore its source, and both refuse a file this build cannot serve
// (design.md §9). Reads only.
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { ApiError, fail, ok, type Result } from '../../errors/api-error.js';
import { migrationNames } from '../migrate.js';
import { absentSideFiles, openSqliteFile, removeCreatedSideFiles } from './sqlite-file.js';

/** Each problem one line; none means the file is healthy. */
export function checkSqlite(conn: Database.Database): string[] {
  return [...integrity(conn), ...foreignKeys(conn), ...migrationLevel(conn)];
}

export interface SoundDatabase {
  /** How many of this build's migrations the file holds. */
  readonly migrationLevel: number;
  readonly bytes: number;
}

/**
 * Whether `file` is a database of this service that this build can serve: it passes
 * integrity_check and holds no migration this build does not know. Pending migrations are
 * no refusal (the service applies them at start-up). The file is left as it was found.
 */
export function checkSqliteFile(file: string): Result<SoundDatabase> {
  const bad = (message: string) => fail<SoundDatabase>(ApiError.field('InvalidValue', 'FILE', message));
  const created = fs.existsSync(file) ? absentSideFiles(file) : [];
  const opened = openSqliteFile(file, { readonly: true });
  if (!opened.ok) return bad(opened.error);
  try {
    const problems = [...integrity(opened.conn), ...migrationLevel(opened.conn)].filter((p) => !p.startsWith(pendingLine));
    // One line for the operator: the first problems say enough.
    if (problems.length > 0) return bad(`${file}: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; ...' : ''}`);
    const level = opened.conn.prepare('SELECT count(*) FROM knex_migrations').pluck().get() as number;
    return ok({ migrationLevel: level, bytes: fs.statSync(file).size });
  } finally {
    opened.conn.close();
    removeCreatedSideFiles(file, created);
  }
}

function integrity(conn: Database.Database): string[] {
  const lines: string[] = [];
  try {
    // Row by row: on some damage SQLite reports what it found and then fails the statement.
    for (const row of conn.prepare('PRAGMA integrity_check').pluck().iterate() as IterableIterator<string>) {
      lines.push(...row.split('\n').filter((l) => l !== '' && !/^\*\*\* in database \w+ \*\*\*$/.test(l)));
    }
  } catch (err) {
    lines.push(`stopped: ${(err as Error).message}`);
  }
  if (lines.length === 1 && lines[0] === 'ok') return [];
  // integrity_check names b-trees by root page ("Tree 7 page 12 ..."): the name says what is hurt.
  const names = new Map<number, string>();
  try {
    for (const r of conn.prepare("SELECT rootpage, type, name FROM sqlite_schema WHERE rootpage > 0").all() as Array<{ rootpage: number; type: string; name: string }>) {
      names.set(r.rootpage, `${r.type} ${r.name}`);
    }
  } catch {
    // A schema too damaged to read still gets SQLite's own lines.
  }
  return lines.map((line) => `integrity_check: ${line.replace(/\bTree (\d+)\b/g, (t, n: string) => (names.has(Number(n)) ? `${t} (${names.get(Number(n))})` : t))}`);
}

function foreignKeys(conn: Database.Database): string[] {
  try {
    const rows = conn.prepare('PRAGMA foreign_key_check').all() as Array<{ table: string; rowid: number | null; parent: string }>;
    return rows.map((r) => `foreign_key_check: ${r.table} row ${r.rowid ?? '?'} refers to a missing ${r.parent} row`);
  } catch (err) {
    return [`foreign_key_check: ${(err as Error).message}`];
  }
}

const pendingLine = 'migrations: pending';

function migrationLevel(conn: Database.Database): string[] {
  let applied: string[];
  try {
    applied = conn.prepare('SELECT name FROM knex_migrations ORDER BY id').pluck().all() as string[];
  } catch {
    return ['migrations: no knex_migrations table: not a database of this service'];
  }
  // Another application's knex migrations: nothing of this service's schema can be assumed.
  if (applied.length > 0 && applied[0] !== migrationNames[0]) return [`migrations: the first is ${applied[0]}: not a database of this service`];
  const unknown = applied.filter((n) => !migrationNames.includes(n));
  const pending = migrationNames.filter((n) => !applied.includes(n));
  return [
    ...(unknown.length > 0 ? [`migrations: from a newer migration level than this build, which does not know ${unknown.join(', ')}`] : []),
    ...(pending.length > 0 ? [`${pendingLine} (the service applies them at start-up): ${pending.join(', ')}`] : []),
  ];
}
