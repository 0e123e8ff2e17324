// Compaction of the embedded file (design.md §8): VACUUM INTO a new file, which is checked
// and then swapped in (sqlite-file-swap.ts). The copy holds every row in full pages; the
// free pages a purge left behind go back to the file system.
import type Database from 'better-sqlite3';
import { openSqliteFile } from './sqlite-file.js';
import { swapSqliteFile, type SwapOutcome } from './sqlite-file-swap.js';

export function compactSqlite(file: string): SwapOutcome {
  return swapSqliteFile(file, (source, target) => {
    source.prepare('VACUUM INTO ?').run(target);
    return verifyCopy(source, target);
  });
}

/** The copy is sound and has as many rows in every table as the source it was made from. */
function verifyCopy(source: Database.Database, target: string): string | undefined {
  const opened = openSqliteFile(target, { readonly: true });
  if (!opened.ok) return opened.error;
  try {
    const check = opened.conn.prepare('PRAGMA quick_check').pluck().all() as string[];
    if (check.join() !== 'ok') return `the compacted copy fails quick_check: ${check[0]}`;
    const tables = source.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
    for (const table of tables) {
      const count = (db: Database.Database) => db.prepare(`SELECT count(*) FROM "${table.replaceAll('"', '""')}"`).pluck().get();
      if (count(source) !== count(opened.conn)) return `the compacted copy of ${table} lacks rows`;
    }
    return undefined;
  } finally {
    opened.conn.close();
  }
}
