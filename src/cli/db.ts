// The embedded file's own tools (design.md §8), for what the sqlite3 shell cannot do on it
// (its indexes call the service's fold()):
//   npm run db -- check           integrity, foreign keys, migration level: `ok` or the problems
//   npm run db -- compact         VACUUM INTO a copy, swapped in; refused while a server holds the file
//   npm run db -- sql [--write]   an SQL prompt with fold(), read-only unless --write
// The file is SQLITE_FILE, as the service resolves it.
import { pathToFileURL } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { ConfigError, loadConfig } from '../config.js';
import { checkSqlite } from '../db/sqlite-file/sqlite-check.js';
import { compactSqlite } from '../db/sqlite-file/sqlite-compact.js';
import { openSqliteFile } from '../db/sqlite-file/sqlite-file.js';
import { runSqlPrompt } from './sql-prompt.js';

export interface DbCliIo {
  readonly stdin: Readable & { isTTY?: boolean };
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const usage = 'usage: npm run db -- check | compact | sql [--write]   (on the SQLite file SQLITE_FILE)';

type Command = { readonly name: 'check' | 'compact' } | { readonly name: 'sql'; readonly write: boolean };

function parse(argv: readonly string[]): Command | string {
  const [name, ...rest] = argv;
  if (name === 'sql') {
    const unknown = rest.filter((a) => a !== '--write');
    if (unknown.length > 0) return `unknown argument ${unknown[0]}`;
    return { name, write: rest.length > 0 };
  }
  if (name !== 'check' && name !== 'compact') return name === undefined ? 'missing command' : `unknown command ${name}`;
  if (rest.length > 0) return `${name} takes no arguments, got ${rest[0]}`;
  return { name };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export async function runDbCli(argv: readonly string[], io: DbCliIo): Promise<number> {
  const err = (s: string) => io.stderr.write(`${s}\n`);
  const command = parse(argv);
  if (typeof command === 'string') { err(`${command}\n${usage}`); return 2; }
  let config;
  try {
    config = loadConfig(io.env);
  } catch (e) {
    if (e instanceof ConfigError) { err(`configuration error: ${e.message}`); return 2; }
    throw e;
  }
  if (config.databaseUrl !== undefined) {
    err('these commands work on the embedded SQLite file, and DATABASE_URL names a MySQL/MariaDB server: use its own tools there (mariadb-check, OPTIMIZE TABLE, the mariadb client)');
    return 2;
  }
  const file = config.sqliteFile;
  if (command.name === 'compact') {
    const started = performance.now();
    const outcome = compactSqlite(file);
    if (!outcome.ok) { err(outcome.error); return 1; }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    io.stdout.write(`compacted ${file}: ${mb(outcome.bytesBefore)} -> ${mb(outcome.bytesAfter)} in ${seconds} s\n`);
    return 0;
  }
  const opened = openSqliteFile(file, { readonly: command.name !== 'sql' || !command.write });
  if (!opened.ok) { err(opened.error); return 1; }
  try {
    if (command.name === 'sql') {
      return await runSqlPrompt(opened.conn, { input: io.stdin, output: io.stdout, errors: io.stderr, interactive: io.stdin.isTTY === true });
    }
    const problems = checkSqlite(opened.conn);
    io.stdout.write(problems.length === 0 ? 'ok\n' : problems.map((p) => `${p}\n`).join(''));
    return problems.length === 0 ? 0 : 1;
  } finally {
    opened.conn.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runDbCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
    (code) => { process.exitCode = code; },
    (e: unknown) => { process.stderr.write(`db failed: ${e instanceof Error ? e.message : String(e)}\n`); process.exitCode = 1; },
  );
}
