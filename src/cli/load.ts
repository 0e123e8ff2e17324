// Loads rows into one of the contract's tables (design.md §8) of the configured database
// (DATABASE_URL, else SQLITE_FILE: the same resolution as the service):
//   npm run load -- TABLE FILE [--max-errors N] [--progress-every SECONDS] [--mysql-via insert|infile]
// FILE: .csv (header row of column names) or .jsonl. The file is streamed, so memory stays
// flat whatever its size. Nothing is written unless every row is valid and the database
// takes them all; problems are printed one per line as FILE:LINE: message, exit code 1.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { connect, disconnect } from '../db/connect.js';
import { migrate } from '../db/migrate.js';
import { loadProgress, summary } from './load-progress.js';
import { loadableTables } from './load-rows.js';
import { loadFile } from './load-run.js';

export const usage = `usage: npm run load -- TABLE FILE [--max-errors N] [--progress-every SECONDS] [--mysql-via insert|infile]
  TABLE: ${Object.keys(loadableTables).join(', ')}; FILE: .csv or .jsonl`;

/** The longest line a file may have: far above any row the contract allows, and a bound on memory. */
export const maxLineBytes = 1024 * 1024;

export interface CliIo {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
  /** Where progress goes: stderr, a live line when it is a terminal. */
  readonly progress: NodeJS.WritableStream & { isTTY?: boolean };
}

export async function runLoad(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let args;
  try {
    args = parseArgs({ args: [...argv], allowPositionals: true, options: { 'max-errors': { type: 'string', default: '100' }, 'progress-every': { type: 'string', default: '5' }, 'mysql-via': { type: 'string', default: 'insert' } } });
  } catch (e) {
    io.err(`${(e as Error).message}\n${usage}`);
    return 2;
  }
  const [table, file, ...rest] = args.positionals;
  const maxErrors = Number(args.values['max-errors']);
  const everySeconds = Number(args.values['progress-every']);
  const via = args.values['mysql-via'];
  if (!table || !file || rest.length > 0 || !Number.isInteger(maxErrors) || maxErrors < 1 || !(everySeconds > 0) || (via !== 'insert' && via !== 'infile')) { io.err(usage); return 2; }
  const format = /\.csv$/i.test(file) ? 'csv' : /\.(jsonl|ndjson)$/i.test(file) ? 'jsonl' : undefined;
  if (!format) { io.err(`${file}: the name must end in .csv or .jsonl\n${usage}`); return 2; }
  const name = path.basename(file);
  if (!loadableTables[table]) { io.err(`${name}:0: unknown table ${table}; one of ${Object.keys(loadableTables).join(', ')}\nnothing was loaded`); return 1; }
  let totalBytes: number;
  try {
    fs.accessSync(file, fs.constants.R_OK);
    totalBytes = fs.statSync(file).size;
  } catch {
    io.err(`${file}: cannot be read`);
    return 2;
  }
  let config;
  try {
    config = loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) { io.err(`configuration error: ${e.message}`); return 2; }
    throw e;
  }
  const db = connect({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, poolMax: 2 });
  try {
    await migrate(db);
    const started = performance.now();
    const progress = loadProgress({ table, totalBytes, stream: io.progress, everyMs: everySeconds * 1000, now: () => performance.now() });
    const outcome = await loadFile(db, { table, file, format, maxErrors, maxLineBytes, via, progress, report: (p) => io.err(`${name}:${p.line}: ${p.message}`) }).finally(() => progress.end());
    if (!outcome.ok) {
      if (outcome.capped) io.err(`${name}:${outcome.capped.line}: stopped reading after ${maxErrors} problems (--max-errors); ${outcome.capped.unreported} more found on this line not shown, the lines after it not checked`);
      io.err('nothing was loaded');
      return 1;
    }
    if (outcome.deferredIndexes > 0) io.out(`${table} was empty: its ${outcome.deferredIndexes} indexes were built after the rows, in the same transaction`);
    io.out(summary(table, outcome.rows, performance.now() - started, Math.round(process.resourceUsage().maxRSS / 1024)));
    return 0;
  } finally {
    await disconnect(db);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runLoad(process.argv.slice(2), process.env, { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`), progress: process.stderr }).then(
    (code) => process.exit(code),
    (e: unknown) => { process.stderr.write(`load failed: ${e instanceof Error ? e.message : String(e)}\n`); process.exit(1); },
  );
}
