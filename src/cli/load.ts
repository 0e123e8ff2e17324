// Loads rows into one of the contract's tables (design.md §8) of the configured database
// (DATABASE_URL, else SQLITE_FILE: the same resolution as the service):
//   npm run load -- TABLE FILE        FILE: .csv (header row of column names) or .jsonl
// Nothing is written unless every row is valid and the database takes them all; problems
// are printed one per line as FILE:LINE: message, and the exit code is 1.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig } from '../config.js';
import { connect } from '../db/connect.js';
import { migrate } from '../db/migrate.js';
import { insertRows, loadableTables, parseRows } from './load-rows.js';

export const usage = `usage: npm run load -- TABLE FILE   (TABLE: ${Object.keys(loadableTables).join(', ')}; FILE: .csv or .jsonl)`;

export async function runLoad(argv: readonly string[], env: NodeJS.ProcessEnv, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const [table, file, ...rest] = argv;
  if (!table || !file || rest.length > 0) { err(usage); return 2; }
  const format = /\.csv$/i.test(file) ? 'csv' : /\.(jsonl|ndjson)$/i.test(file) ? 'jsonl' : undefined;
  if (!format) { err(`${file}: the name must end in .csv or .jsonl\n${usage}`); return 2; }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    err(`${file}: cannot be read`);
    return 2;
  }
  const parsed = parseRows(table, format, text);
  const name = path.basename(file);
  if (!parsed.ok) {
    for (const p of parsed.problems.slice(0, 100)) err(`${name}:${p.line}: ${p.message}`);
    if (parsed.problems.length > 100) err(`... and ${parsed.problems.length - 100} more`);
    err('nothing was loaded');
    return 1;
  }
  let config;
  try {
    config = loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) { err(`configuration error: ${e.message}`); return 2; }
    throw e;
  }
  const db = connect({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
  try {
    await migrate(db);
    const inserted = await insertRows(db, table, parsed.rows);
    if (!inserted.ok) { err(`${name}:${inserted.problem.line}: ${inserted.problem.message}`); return 1; }
    out(`${parsed.rows.length} rows loaded into ${table}`);
    return 0;
  } finally {
    await db.destroy();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runLoad(process.argv.slice(2), process.env, (s) => process.stdout.write(`${s}\n`), (s) => process.stderr.write(`${s}\n`)).then(
    (code) => process.exit(code),
    (e: unknown) => { process.stderr.write(`load failed: ${e instanceof Error ? e.message : String(e)}\n`); process.exit(1); },
  );
}
