// The health of the embedded file as an operator checks it (design.md §8): SQLite's own
// integrity_check, which needs fold() for the expression indexes, foreign_key_check, and
// the migration level against the one this build expects. Reads only.
import type Database from 'better-sqlite3';
import { migrationNames } from './migrate.js';

/** Each problem one line; none means the file is healthy. */
export function checkSqlite(conn: Database.Database): string[] {
  return [...integrity(conn), ...foreignKeys(conn), ...migrationLevel(conn)];
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

function migrationLevel(conn: Database.Database): string[] {
  let applied: string[];
  try {
    applied = conn.prepare('SELECT name FROM knex_migrations ORDER BY id').pluck().all() as string[];
  } catch {
    return ['migrations: no knex_migrations table: not a database of this service'];
  }
  const unknown = applied.filter((n) => !migrationNames.includes(n));
  const pending = migrationNames.filter((n) => !applied.includes(n));
  return [
    ...(unknown.length > 0 ? [`migrations: applied but unknown to this build (a newer version's?): ${unknown.join(', ')}`] : []),
    ...(pending.length > 0 ? [`migrations: pending (the service applies them at start-up): ${pending.join(', ')}`] : []),
  ];
}
