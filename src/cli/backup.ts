// npm run backup -- FILE (design.md §9): a consistent copy of the embedded SQLite file
// while the service serves and writes, checked before it is called done. Every refusal is
// one line on stderr and a non-zero exit, with nothing written.
import { pathToFileURL } from 'node:url';
import type { Writable } from 'node:stream';
import { loadConfig } from '../config.js';
import { backupSqlite } from '../db/sqlite-file/sqlite-backup.js';

export interface ToolIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const onMysql = 'DATABASE_URL is set: back up MySQL/MariaDB with the engine\'s own tools (mariadb-dump --single-transaction, README "For operators")';

export async function runBackupCli(argv: readonly string[], io: ToolIo): Promise<number> {
  if (argv.length !== 1 || argv[0]!.startsWith('-')) {
    io.stderr.write('usage: npm run backup -- FILE   (a new file in an existing directory)\n');
    return 2;
  }
  try {
    const config = loadConfig(io.env);
    if (config.databaseUrl !== undefined) {
      io.stderr.write(`${onMysql}\n`);
      return 2;
    }
    const taken = await backupSqlite(config.sqliteFile, argv[0]!);
    if (!taken.ok) {
      io.stderr.write(`backup failed: ${taken.error.message}\n`);
      return 1;
    }
    const b = taken.value;
    io.stdout.write(`backed up ${config.sqliteFile} to ${b.file}: ${b.bytes} bytes in ${Math.round(b.ms)} ms, integrity ok, migration level ${b.migrationLevel}\n`);
    return 0;
  } catch (err) {
    io.stderr.write(`backup failed: ${(err as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runBackupCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) => {
    process.exitCode = code;
  });
}
