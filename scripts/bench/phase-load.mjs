// `--only load`: `npm run load` against each engine's own bulk loader, on generated CSV files
// of soggetto_recapito (data.mjs's rows; 1M and 10M by default, --load-rows). For each size:
// SQLite: our loader into a fresh migrated file, and the sqlite3 shell's `.import` into the
// same tables and indexes (the shell has no fold(), so its four indexes are on the columns
// themselves, and no substring index); MariaDB: our loader by multi-row INSERT and by LOAD DATA LOCAL INFILE, each
// into a fresh migrated database, and the mariadb client's `LOAD DATA LOCAL INFILE` of the
// CSV into another, all on one private server this phase starts (loadServerArgs). Peak RSS
// is the loader's own (getrusage, printed with its rows per second); each run notes the
// machine's load average as it ends. What the substring index costs a load is its fill, timed
// again alone after the load (the loader fills it in one statement before its commit, and
// migrates the database first, so a run without it would not be this loader), and the sizes
// (SQLite: the file and the index; MariaDB: the table with its indexes + the trigram tables).
// Writes scripts/bench/results-load.json and prints the table.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { soggettoRecapitoColumns, soggettoRecapitoRow } from './data.mjs';
import { connectionOf, withDatabase } from './seed.mjs';

const run = promisify(execFile);

/**
 * The private MariaDB's settings, as an operator sets a server up to load ten million rows:
 * a buffer pool that holds the table and its four secondary indexes (about 1.7 GB at 10M
 * rows), so that keeping the indexes costs no reads (with 128 MB the rate falls threefold
 * past 3M rows), and a redo log large enough that the one long transaction forces no early
 * checkpoints. Durability stays the default (innodb_flush_log_at_trx_commit=1).
 */
export const loadServerArgs = ['--innodb-buffer-pool-size=4G', '--innodb-log-file-size=1G', '--character-set-server=utf8mb4', '--collation-server=utf8mb4_unicode_ci'];

/** The built test helper that starts a private server; the shared one is never used here. */
const privateMariaDb = new URL('../../dist/test/reliability/support/private-mariadb.js', import.meta.url);

/** The 1-minute load average: the other work on the machine while a run ends. */
const loadAvg = () => Math.round(os.loadavg()[0] * 100) / 100;

/** A CSV of `rows` rows, kept in `out` between runs (the rows of a size never change). */
async function generate(file, rows) {
  if (fs.existsSync(file)) return;
  const out = fs.createWriteStream(`${file}.part`);
  out.write(`${soggettoRecapitoColumns.join(',')}\n`);
  let text = '';
  for (let id = 1; id <= rows; id++) {
    text += `${soggettoRecapitoRow(id, rows).map((v) => v ?? '').join(',')}\n`;
    if (text.length > 1 << 16) {
      if (!out.write(text)) await new Promise((resolve) => out.once('drain', resolve));
      text = '';
    }
  }
  await new Promise((resolve) => out.end(text, resolve));
  fs.renameSync(`${file}.part`, file);
}

/** Runs the built loader; its last line gives rows/s and peak memory. */
async function ourLoader(appRoot, env, file, args = []) {
  const started = performance.now();
  const child = spawn(process.execPath, [new URL('dist/src/cli/load.js', appRoot).pathname, 'soggetto_recapito', file, '--progress-every', '30', ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  const seconds = (performance.now() - started) / 1000;
  const m = /(\d+) rows loaded into \S+ in ([\d.]+) s: (\d+) rows\/s, peak memory (\d+) MB/.exec(stdout);
  if (code !== 0 || !m) throw new Error(`npm run load failed (${code}): ${stdout}${stderr}`);
  return { rows: Number(m[1]), seconds: Math.round(seconds * 10) / 10, reportedRowsPerS: Number(m[3]), rowsPerS: Math.round(Number(m[1]) / seconds), peakRssMb: Number(m[4]), loadAvg: loadAvg(), output: stdout.trim().split('\n') };
}

async function timed(work) {
  const started = performance.now();
  await work();
  return Math.round((performance.now() - started) / 100) / 10;
}

async function migrated(appRoot, options) {
  const { connect, disconnect } = await import(new URL('dist/src/db/connect.js', appRoot));
  const { migrate } = await import(new URL('dist/src/db/migrate.js', appRoot));
  const db = connect(options);
  try { await migrate(db); } finally { await disconnect(db); }
}

async function sqliteRuns(appRoot, out, file, rows, log) {
  const db = new URL(`load-${rows}.sqlite`, out).pathname;
  const fresh = async () => {
    for (const s of ['', '-wal', '-shm']) fs.rmSync(db + s, { force: true });
    await migrated(appRoot, { sqliteFile: db });
  };
  await fresh();
  // The shell has no fold(), and before 3.43 no contentless FTS5 table that deletes: its baseline has no substring index.
  await withoutSubstringIndex(appRoot, { sqliteFile: db });
  const indexes = (await run('sqlite3', [db, "SELECT name || '|' || sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'soggetto_recapito' AND sql IS NOT NULL"])).stdout.trim().split('\n');
  const plain = indexes.map((l) => l.split('|')).map(([name, sql]) => `DROP INDEX ${name}; ${sql.replace(/fold\(([^)]+)\)/, "$1")};`).join(' ');
  await run('sqlite3', [db, plain]);
  const engineSeconds = await timed(() => run('sqlite3', [db, '-cmd', '.mode csv', `.import --skip 1 ${file} soggetto_recapito`], { maxBuffer: 1 << 24 }));
  const engineLoadAvg = loadAvg();
  log(`load ${rows} sqlite: sqlite3 .import ${engineSeconds} s, load average ${engineLoadAvg}`);
  await fresh();
  const ours = await ourLoader(appRoot, { SQLITE_FILE: db }, file);
  await run('sqlite3', [db, 'PRAGMA wal_checkpoint(TRUNCATE)']);
  ours.sizeMb = Math.round(fs.statSync(db).size / 2 ** 20);
  ours.substringIndex = await sqliteFillSeconds(appRoot, db);
  log(`load ${rows} sqlite: npm run load ${ours.seconds} s (its substring index filled again alone: ${ours.substringIndex.seconds} s, ${ours.substringIndex.sizeMb} MB), ${ours.peakRssMb} MB, file ${ours.sizeMb} MB, load average ${ours.loadAvg}`);
  for (const s of ['', '-wal', '-shm']) fs.rmSync(db + s, { force: true });
  return { engine: { loader: 'sqlite3 .import', seconds: engineSeconds, rowsPerS: Math.round(rows / engineSeconds), loadAvg: engineLoadAvg }, ours: { sqlite: ours } };
}

/** Takes the substring index (design.md §8) off a migrated database: its migration's own down(). */
async function withoutSubstringIndex(appRoot, options) {
  const { connect, disconnect } = await import(new URL('dist/src/db/connect.js', appRoot));
  const migration = await import(new URL('dist/src/db/migrations/008-substring-index.js', appRoot));
  const db = connect(options);
  try { await migration.down(db.knex, db); } finally { await disconnect(db); }
}

/**
 * What the substring index costs a load (design.md §8): its fill after the load, emptied and
 * filled again alone, as the loader fills it before its commit; and its pages.
 */
async function sqliteFillSeconds(appRoot, file) {
  const { default: Database } = await import('better-sqlite3');
  const { fold } = await import(new URL('dist/src/db/fold.js', appRoot));
  const { fillStatements } = await import(new URL('dist/src/db/substring-index/substring-index-deferred.js', appRoot));
  const { indexesOf } = await import(new URL('dist/src/db/substring-index/substring-index.js', appRoot));
  const db = new Database(file);
  try {
    db.function('fold', { deterministic: true }, (v) => (typeof v === 'string' ? fold(v) : v));
    const names = indexesOf('soggetto_recapito').map((s) => s.index);
    const sizeMb = Math.round(names.reduce((sum, n) => sum + Number(db.prepare('SELECT SUM(pgsize) AS s FROM dbstat WHERE name LIKE ?').get(`${n}%`).s), 0) / 2 ** 20);
    for (const n of names) db.prepare(`INSERT INTO "${n}" ("${n}") VALUES ('delete-all')`).run();
    const started = performance.now();
    db.transaction(() => {
      for (const { sql, bindings } of fillStatements('sqlite', 'soggetto_recapito', 'all')) db.prepare(sql).run(...bindings);
    })();
    return { seconds: Math.round((performance.now() - started) / 100) / 10, sizeMb };
  } finally {
    db.close();
  }
}

/** The same on MySQL: the trigram tables emptied, and filled again alone in one transaction, by sorting. */
async function mysqlFillSeconds(appRoot, admin, database) {
  const { mysqlTrigramDeferral } = await import(new URL('dist/src/db/substring-index/substring-index-deferred.js', appRoot));
  const { indexesOf } = await import(new URL('dist/src/db/substring-index/substring-index.js', appRoot));
  await admin.query(`USE ${database}`);
  for (const { index } of indexesOf('soggetto_recapito')) await admin.query(`TRUNCATE TABLE ${index}`);
  const started = performance.now();
  await admin.query('BEGIN');
  for (const { sql, bindings } of mysqlTrigramDeferral('soggetto_recapito').beforeCommit('all')) await admin.query(sql, bindings);
  await admin.query('COMMIT');
  return { seconds: Math.round((performance.now() - started) / 100) / 10 };
}

/** MB of soggetto_recapito with its indexes, and of its trigram tables, in `database`. */
async function mysqlSizes(admin, database) {
  const [rows] = await admin.query(
    "SELECT SUM(CASE WHEN table_name = 'soggetto_recapito' THEN data_length + index_length ELSE 0 END) AS t, SUM(CASE WHEN table_name LIKE 'soggetto_recapito%trigrams' THEN data_length + index_length ELSE 0 END) AS g FROM information_schema.tables WHERE table_schema = ?",
    [database],
  );
  return { tableMb: Math.round(Number(rows[0].t) / 2 ** 20), trigramsMb: Math.round(Number(rows[0].g) / 2 ** 20) };
}

async function mysqlRuns(appRoot, serverUrl, file, rows, log) {
  const admin = await mysql.createConnection({ ...connectionOf(serverUrl), database: undefined });
  const fresh = async (name) => {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
    await migrated(appRoot, { databaseUrl: withDatabase(serverUrl, name) });
    return withDatabase(serverUrl, name);
  };
  try {
    const c = connectionOf(await fresh('impianti_bench_load'));
    const engineSeconds = await timed(() => run('mariadb', ['--local-infile=1', '-h', c.host, '-P', String(c.port), '-u', c.user, ...(c.password ? [`-p${c.password}`] : []), c.database, '-e',
      `LOAD DATA LOCAL INFILE '${file}' INTO TABLE soggetto_recapito CHARACTER SET utf8mb4 FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' LINES TERMINATED BY '\\n' IGNORE 1 LINES (${soggettoRecapitoColumns.join(', ')})`]));
    const engineLoadAvg = loadAvg();
    log(`load ${rows} mysql: LOAD DATA ${engineSeconds} s, load average ${engineLoadAvg}`);
    const ours = {};
    for (const via of ['insert', 'infile']) {
      ours[via] = await ourLoader(appRoot, { DATABASE_URL: await fresh('impianti_bench_load') }, file, ['--mysql-via', via]);
      await admin.query('ANALYZE TABLE impianti_bench_load.soggetto_recapito, impianti_bench_load.soggetto_recapito_recapito_trigrams, impianti_bench_load.soggetto_recapito_codice_esterno_trigrams');
      Object.assign(ours[via], await mysqlSizes(admin, 'impianti_bench_load'));
      if (via === 'insert') ours[via].substringIndex = await mysqlFillSeconds(appRoot, admin, 'impianti_bench_load');
      const fill = ours[via].substringIndex ? ` (its substring index filled again alone: ${ours[via].substringIndex.seconds} s)` : '';
      log(`load ${rows} mysql: npm run load --mysql-via ${via} ${ours[via].seconds} s${fill}, ${ours[via].peakRssMb} MB, table ${ours[via].tableMb} MB + trigrams ${ours[via].trigramsMb} MB, load average ${ours[via].loadAvg}`);
    }
    await admin.query('DROP DATABASE IF EXISTS impianti_bench_load');
    return { engine: { loader: 'LOAD DATA LOCAL INFILE (mariadb client)', seconds: engineSeconds, rowsPerS: Math.round(rows / engineSeconds), loadAvg: engineLoadAvg }, ours };
  } finally {
    await admin.end();
  }
}

export async function loadPhase({ appRoot, out, log, sizes, resultsFile }) {
  if (!fs.existsSync(privateMariaDb)) throw new Error(`${privateMariaDb.pathname} is missing: make build first`);
  const { PrivateMariaDb } = await import(privateMariaDb);
  const server = await PrivateMariaDb.create(undefined, loadServerArgs);
  const results = { date: new Date().toISOString(), sizes, machine: { cpus: os.cpus().length, memoryGb: Math.round(os.totalmem() / 2 ** 30) }, mysqlServer: { args: loadServerArgs }, sqlite: {}, mysql: {} };
  try {
    await server.start();
    const serverUrl = `${server.url}/mysql`;
    const admin = await mysql.createConnection(connectionOf(serverUrl));
    const [[facts]] = await admin.query('SELECT VERSION() AS version, @@innodb_buffer_pool_size AS pool, @@innodb_log_file_size AS log, @@max_allowed_packet AS packet');
    await admin.end();
    results.mysqlServer = { version: facts.version, bufferPoolMb: Number(facts.pool) / 2 ** 20, logFileMb: Number(facts.log) / 2 ** 20, maxAllowedPacketMb: Number(facts.packet) / 2 ** 20, args: loadServerArgs };
    log(`load: private MariaDB ${facts.version} on port ${server.port}, ${loadServerArgs.join(' ')}`);
    for (const rows of sizes) {
      const file = new URL(`load-${rows}.csv`, out).pathname;
      await generate(file, rows);
      results.sqlite[rows] = await sqliteRuns(appRoot, out, file, rows, log);
      results.mysql[rows] = await mysqlRuns(appRoot, serverUrl, file, rows, log);
    }
  } finally {
    await server.destroy();
  }
  fs.writeFileSync(resultsFile, JSON.stringify(results, null, 2) + '\n');
  console.log('\nnpm run load against the engine\'s own loader (soggetto_recapito, generated CSV):');
  console.log('engine'.padEnd(7), 'rows'.padStart(9), 'loader'.padEnd(40), 'seconds'.padStart(8), 'rows/s'.padStart(8), 'peak RSS MB'.padStart(12), 'ratio'.padStart(6), 'load avg'.padStart(9), 'size MB'.padStart(12), 'index fill s'.padStart(13), 'rows/s without'.padStart(15));
  for (const engine of ['sqlite', 'mysql']) {
    for (const rows of sizes) {
      const r = results[engine][rows];
      const size = (x) => (x.sizeMb !== undefined ? `${x.sizeMb} (${x.substringIndex?.sizeMb ?? '-'})` : x.tableMb === undefined ? '-' : `${x.tableMb}+${x.trigramsMb}`);
      const line = (name, x, rss, ratio) => console.log(engine.padEnd(7), String(rows).padStart(9), name.padEnd(40), String(x.seconds).padStart(8), String(x.rowsPerS).padStart(8), String(rss).padStart(12), String(ratio).padStart(6), String(x.loadAvg).padStart(9), String(size(x)).padStart(12), String(x.substringIndex?.seconds ?? '-').padStart(13), String(x.substringIndex ? Math.round(rows / (x.seconds - x.substringIndex.seconds)) : '-').padStart(15));
      line(engine === 'sqlite' ? 'sqlite3 .import' : 'LOAD DATA (client)', r.engine, '-', 1);
      for (const [via, x] of Object.entries(r.ours)) line(`npm run load${engine === 'mysql' ? ` (${via})` : ''}`, x, x.peakRssMb, Math.round((x.rowsPerS / r.engine.rowsPerS) * 100) / 100);
    }
  }
  console.log(`written: ${resultsFile}`);
  return results;
}
