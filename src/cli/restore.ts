// npm run restore -- FILE (design.md §9): puts a backup in place of the embedded SQLite
// file. Refused while a server holds the file, and for a file that fails the integrity
// check, is no database of this service or comes from a newer migration level. The
// source is copied and checked beside the live file, then swapped in with one rename;
// the replaced database stays beside it. Every refusal changes nothing.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../config.js';
import { backupSqlite } from '../db/sqlite-file/sqlite-backup.js';
import { checkSqliteFile } from '../db/sqlite-file/sqlite-check.js';
import { absentSideFiles, openSqliteFile, removeCreatedSideFiles } from '../db/sqlite-file/sqlite-file.js';
import { swapSqliteFile } from '../db/sqlite-file/sqlite-file-swap.js';
import { bumpRestoredVersions } from '../db/table-versions/table-versions-deferred.js';
import type { ToolIo } from './backup.js';

const onMysql = 'DATABASE_URL is set: restore MySQL/MariaDB with the engine\'s own client (mariadb DB < dump.sql, README "For operators")';

export async function runRestoreCli(argv: readonly string[], io: ToolIo): Promise<number> {
  if (argv.length !== 1 || argv[0]!.startsWith('-')) {
    io.stderr.write('usage: npm run restore -- FILE   (a backup taken by npm run backup or BACKUP_DIR)\n');
    return 2;
  }
  const source = argv[0]!;
  const refuse = (message: string, code = 1) => {
    io.stderr.write(`restore refused: ${message}\n`);
    return code;
  };
  try {
    const config = loadConfig(io.env);
    if (config.databaseUrl !== undefined) return refuse(onMysql, 2);
    const live = config.sqliteFile;
    if (path.resolve(source) === path.resolve(live)) return refuse(`${source} is the live database itself`);
    const sound = checkSqliteFile(source);
    if (!sound.ok) return refuse(sound.error.message);
    const level = `migration level ${sound.value.migrationLevel}`;
    if (!fs.existsSync(live)) {
      // Nothing to replace and nobody to hold it: a checked copy renamed into place.
      fs.mkdirSync(path.dirname(path.resolve(live)), { recursive: true });
      const copied = await backupSqlite(source, live);
      if (!copied.ok) return refuse(copied.error.message);
      const moved = moveVersions(live);
      if (moved !== undefined) return refuse(moved);
      io.stdout.write(`restored ${live} from ${source} (${level})\n`);
      return 0;
    }
    const swapped = swapSqliteFile(live, (_held, target) => copyChecked(source, target), { keepReplacedAt: new Date() });
    if (!swapped.ok) return refuse(swapped.error);
    io.stdout.write(`restored ${live} from ${source} (${level}); the replaced database is ${swapped.kept}\n`);
    return 0;
  } catch (err) {
    return refuse((err as Error).message);
  }
}

/** The source as one file at `target`, checked again: it may have changed since its first check. */
function copyChecked(source: string, target: string): string | undefined {
  const created = absentSideFiles(source);
  const opened = openSqliteFile(source, { readonly: true });
  if (!opened.ok) return opened.error;
  try {
    opened.conn.prepare('VACUUM INTO ?').run(target);
  } finally {
    opened.conn.close();
    removeCreatedSideFiles(source, created);
  }
  const moved = moveVersions(target);
  if (moved !== undefined) return moved;
  const copy = checkSqliteFile(target);
  return copy.ok ? undefined : copy.error.message;
}

/** The restored copy's table versions moved past the replaced database's (design.md §8); an error's text, or undefined. */
function moveVersions(file: string): string | undefined {
  const opened = openSqliteFile(file, { readonly: false });
  if (!opened.ok) return opened.error;
  try {
    bumpRestoredVersions(opened.conn);
    return undefined;
  } catch (err) {
    return `${file}: ${(err as Error).message}`;
  } finally {
    opened.conn.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runRestoreCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) => {
    process.exitCode = code;
  });
}
