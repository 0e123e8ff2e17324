// The interactive SQL prompt of `npm run db -- sql` (design.md §8): reads statements line by
// line, runs each as soon as its semicolon arrives, and prints rows as `a|b` under a header
// of column names, as the sqlite3 shell's `-header` mode does, so its output reads the same.
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type Database from 'better-sqlite3';
import { splitStatements } from './sql-statements.js';

export interface PromptIo {
  readonly input: Readable;
  readonly output: Writable;
  readonly errors: Writable;
  /** A terminal gets prompts; piped input gets only the answers. */
  readonly interactive: boolean;
}

const help = '.quit or .exit leaves; statements end with ";"; fold(text) folds case and accents as the service does';

/** Exits 0 when every statement ran, 1 when any failed (each failure printed as it happens). */
export async function runSqlPrompt(conn: Database.Database, io: PromptIo): Promise<number> {
  const rl = readline.createInterface({ input: io.input, terminal: io.interactive, ...(io.interactive ? { output: io.output } : {}) });
  const prompt = (more: boolean) => { if (io.interactive) { rl.setPrompt(more ? '...> ' : 'sql> '); rl.prompt(); } };
  let buffer = '';
  let failed = false;
  prompt(false);
  for await (const line of rl) {
    if (buffer.trim() === '' && /^\s*\.(quit|exit)\s*$/.test(line)) break;
    if (buffer.trim() === '' && /^\s*\./.test(line)) {
      io.errors.write(/^\s*\.help\s*$/.test(line) ? `${help}\n` : `error: unknown command ${line.trim()} (${help})\n`);
      prompt(false);
      continue;
    }
    buffer += `${line}\n`;
    const split = splitStatements(buffer);
    buffer = split.rest;
    for (const sql of split.complete) failed = !run(conn, sql, io) || failed;
    prompt(buffer.trim() !== '');
  }
  // The last statement may lack its semicolon, as in the sqlite3 shell.
  if (buffer.trim() !== '') failed = !run(conn, buffer.trim(), io) || failed;
  rl.close();
  return failed ? 1 : 0;
}

function run(conn: Database.Database, sql: string, io: PromptIo): boolean {
  try {
    // A line of comments alone is no statement, and nothing to run.
    if (sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, '').trim() === '') return true;
    const statement = conn.prepare(sql);
    if (!statement.reader) {
      statement.run();
      return true;
    }
    io.output.write(`${statement.columns().map((c) => c.name).join('|')}\n`);
    for (const row of statement.raw().iterate() as IterableIterator<unknown[]>) io.output.write(`${row.map(cell).join('|')}\n`);
    return true;
  } catch (err) {
    const e = err as { code?: string; message: string };
    const hint = e.code === 'SQLITE_READONLY' ? ' (the prompt is read-only: start it with --write to change the file)' : '';
    io.errors.write(`error: ${e.message}${hint}\n`);
    return false;
  }
}

/** NULL as an empty cell, blobs as SQL hex literals. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Buffer.isBuffer(value)) return `X'${value.toString('hex').toUpperCase()}'`;
  return String(value);
}
