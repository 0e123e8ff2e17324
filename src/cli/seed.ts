// The bulk seed CLI: loads N generated rows per query table into the configured database
// (DATABASE_URL, else SQLITE_FILE: the same resolution as the service), for load tests.
//   npm run seed -- --rows 1000000 [--table caratteristica_gruppo|soggetto_recapito|all] [--seed 1] [--batch 2000]
// Progress goes to stderr (a bar on a terminal, a line per tenth otherwise); the summary with
// rows/s goes to stdout, so `npm run seed ... > log` keeps only the figures.
import { pathToFileURL } from 'node:url';
import type { Writable } from 'node:stream';
import { ConfigError, loadConfig } from '../config.js';
import { connect, disconnect } from '../db/connect.js';
import { migrate } from '../db/migrate.js';
import { bulkTables, maxBatchRows, seedBulk, type BulkTable, type SeedProgress } from '../db/seed-bulk.js';
import { INT32_MAX } from '../int32.js';

export interface SeedArgs {
  readonly rows: number;
  readonly table: BulkTable | 'all';
  readonly seed: number;
  readonly batchRows: number;
}

export type ParsedArgs = { readonly kind: 'run'; readonly args: SeedArgs } | { readonly kind: 'help' } | { readonly kind: 'error'; readonly message: string };

export const usage = `usage: npm run seed -- --rows N [--table ${[...bulkTables, 'all'].join('|')}] [--seed S] [--batch B]`;


/** Pure: argv (after the script name) to what to do. Accepts `--name value` and `--name=value`. */
export function parseSeedArgs(argv: readonly string[]): ParsedArgs {
  const values: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    const m = /^--(rows|table|seed|batch)(?:=(.*))?$/.exec(arg);
    if (!m) return { kind: 'error', message: arg.startsWith('-') ? `unknown option ${arg}` : `unexpected argument ${arg}` };
    const value = m[2] ?? argv[++i];
    if (value === undefined || value === '') return { kind: 'error', message: `--${m[1]} needs a value` };
    values[m[1]!] = value;
  }
  if (values['rows'] === undefined) return { kind: 'error', message: '--rows is required' };
  const rows = integer('rows', values['rows'], 1, INT32_MAX);
  const seed = integer('seed', values['seed'] ?? '1', 0, 2 ** 32 - 1);
  const batchRows = integer('batch', values['batch'] ?? '2000', 1, maxBatchRows);
  for (const r of [rows, seed, batchRows]) if (typeof r === 'string') return { kind: 'error', message: r };
  const table = values['table'] ?? 'all';
  if (table !== 'all' && !(bulkTables as readonly string[]).includes(table)) {
    return { kind: 'error', message: `--table must be one of ${[...bulkTables, 'all'].join(', ')}, got "${table}"` };
  }
  return { kind: 'run', args: { rows: rows as number, table: table as BulkTable | 'all', seed: seed as number, batchRows: batchRows as number } };
}

/** The number, or the message saying what is wrong with it. Underscores are allowed: 1_000_000. */
function integer(name: string, raw: string, min: number, max: number): number | string {
  const text = raw.replace(/_/g, '');
  if (!/^\d+$/.test(text)) return `--${name} must be a whole number, got "${raw}"`;
  const n = Number(text);
  return n < min || n > max ? `--${name} must be between ${min} and ${max}, got ${n}` : n;
}

export interface SeedIo {
  readonly stdout: Writable;
  readonly stderr: Writable & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** A redrawn bar on a terminal (at most every 100 ms); elsewhere a line per tenth, so logs stay short. */
export function progressReporter(stderr: SeedIo['stderr']): (p: SeedProgress) => void {
  let lastDraw = 0;
  let lastTenth = -1;
  return (p) => {
    const fraction = p.done / p.total;
    const rate = p.done / Math.max(p.elapsedMs / 1000, 0.001);
    const text = `${p.table} ${fmt(p.done)}/${fmt(p.total)} ${(fraction * 100).toFixed(0).padStart(3)}% ${fmt(rate)} rows/s`;
    if (stderr.isTTY) {
      const now = Date.now();
      if (now - lastDraw < 100 && p.done < p.total) return;
      lastDraw = now;
      const width = 30;
      const filled = Math.round(fraction * width);
      stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}\x1b[K${p.done === p.total ? '\n' : ''}`);
    } else {
      const tenth = Math.floor(fraction * 10);
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      stderr.write(`${text}\n`);
    }
  };
}

export async function runSeedCli(argv: readonly string[], io: SeedIo): Promise<number> {
  const parsed = parseSeedArgs(argv);
  if (parsed.kind === 'help') {
    io.stdout.write(`${usage}\n`);
    return 0;
  }
  if (parsed.kind === 'error') {
    io.stderr.write(`seed: ${parsed.message}\n${usage}\n`);
    return 2;
  }
  const { args } = parsed;
  try {
    const config = loadConfig(io.env);
    const db = connect({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, poolMax: 5 });
    try {
      await migrate(db);
      const seeded = await seedBulk(db, { table: args.table, rows: args.rows, seed: args.seed, batchRows: args.batchRows, onProgress: progressReporter(io.stderr) });
      const where = config.databaseUrl ? 'MySQL' : config.sqliteFile;
      for (const s of seeded) {
        io.stdout.write(`${s.table}: ${fmt(s.rows)} rows, ids ${s.firstId}..${s.lastId}, in ${(s.elapsedMs / 1000).toFixed(1)} s = ${fmt(s.rows / (s.elapsedMs / 1000))} rows/s (${where})\n`);
      }
      return 0;
    } finally {
      await disconnect(db);
    }
  } catch (err) {
    const message = err instanceof ConfigError ? `configuration error: ${err.message}` : err instanceof Error ? err.message : String(err);
    io.stderr.write(`seed: ${message}\n`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runSeedCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) => {
    process.exitCode = code;
  });
}
