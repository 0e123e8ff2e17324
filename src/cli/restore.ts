// npm run restore -- FILE (design.md §9): puts a backup in place of the embedded SQLite
// file. Refused while a server holds the file, and for a file that fails the integrity
// check, is no database of this service or comes from a newer migration level. The
// source is copied and checked beside the live file, then swapped in with one rename;
// the replaced database stays beside it. Every refusal changes nothing.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../config.js';
import { backupSqlite } from '../db/sqlite-backup.js';
import { checkSqliteFile } from '../db/sqlite-check.js';
import { heldByServer, swapIn } from '../db/sqlite-file-swap.js';
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
    const free = heldByServer(live);
    if (!free.ok) return refuse(free.error.message);
    fs.mkdirSync(path.dirname(path.resolve(live)), { recursive: true });
    // A checked copy beside the live file, so the swap is a rename on one file system.
    const staged = path.join(path.dirname(path.resolve(live)), `.${path.basename(live)}.restoring-${process.pid}`);
    const copied = await backupSqlite(source, staged);
    if (!copied.ok) return refuse(copied.error.message);
    const swapped = swapIn(live, staged, new Date());
    if (!swapped.ok) {
      fs.rmSync(staged, { force: true });
      return refuse(swapped.error.message);
    }
    const kept = swapped.value.kept ? `; the replaced database is ${swapped.value.kept}` : '';
    io.stdout.write(`restored ${live} from ${source} (migration level ${sound.value.migrationLevel})${kept}\n`);
    return 0;
  } catch (err) {
    return refuse((err as Error).message);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runRestoreCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) => {
    process.exitCode = code;
  });
}
