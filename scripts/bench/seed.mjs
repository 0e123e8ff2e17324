// Seeds a bench database: migrations (the service's own, from dist/), then the rows of
// data.mjs through multi-row INSERTs on a few connections. A table that already holds
// exactly the wanted rows is left alone, so a second `make bench` starts at once.
// Large loads drop the table's secondary indexes first and rebuild them afterwards:
// InnoDB builds an index by sorting far faster than it maintains it row by row
// (MariaDB KB, "How to quickly insert data into MariaDB").
import fs from 'node:fs';
import mysql from 'mysql2/promise';
import {
  caratteristicaGruppoColumns, caratteristicaGruppoRow, impiantoColumns, impiantoFileColumns, impiantoRows,
  soggettoRecapitoColumns, soggettoRecapitoRow,
} from './data.mjs';

const chunkRows = 4000;
const parallel = 3;

/** mysql://user:pass@host:port/db -> connection options. */
export function connectionOf(url) {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password), database: u.pathname.slice(1) };
}

export function withDatabase(url, database) {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function migrate(url, root) {
  const { connect } = await import(new URL('dist/src/db/connect.js', root));
  const { migrate: run } = await import(new URL('dist/src/db/migrate.js', root));
  const db = connect({ databaseUrl: url });
  try {
    await run(db);
  } finally {
    await db.destroy();
  }
}

/**
 * Makes `database` hold `sizes.soggettoRecapito` contacts, `sizes.caratteristicaGruppo`
 * groups and `sizes.impianti` impianti with `sizes.filesPerRoot` files each.
 */
export async function seedDatabase(serverUrl, database, sizes, { root, log = () => {} }) {
  const admin = await mysql.createConnection({ ...connectionOf(serverUrl), database: undefined });
  await admin.query(`CREATE DATABASE IF NOT EXISTS ${mysql.escapeId(database)} CHARACTER SET utf8mb4`);
  await admin.end();
  const url = withDatabase(serverUrl, database);
  await migrate(url, root);
  const pool = mysql.createPool({ ...connectionOf(url), connectionLimit: parallel, charset: 'utf8mb4', timezone: 'Z' });
  const stats = {};
  try {
    stats.soggetto_recapito = await ensureTable(pool, 'soggetto_recapito', soggettoRecapitoColumns, sizes.soggettoRecapito, (id) => [soggettoRecapitoRow(id, sizes.soggettoRecapito)], log);
    stats.caratteristica_gruppo = await ensureTable(pool, 'caratteristica_gruppo', caratteristicaGruppoColumns, sizes.caratteristicaGruppo, (id) => [caratteristicaGruppoRow(id)], log);
    const files = sizes.impianti * (sizes.filesPerRoot + 1);
    const [[{ n: haveFiles }]] = await pool.query('SELECT COUNT(*) AS n FROM impianto_file');
    const [[{ n: haveImpianti }]] = await pool.query('SELECT COUNT(*) AS n FROM impianto');
    if (Number(haveFiles) !== files || Number(haveImpianti) !== sizes.impianti) {
      await pool.query('DELETE FROM impianto_file');
      await pool.query('DELETE FROM impianto');
      const started = Date.now();
      for (let i = 1; i <= sizes.impianti; i += 200) {
        const batch = [];
        for (let k = i; k < Math.min(i + 200, sizes.impianti + 1); k++) batch.push(impiantoRows(k, sizes.filesPerRoot));
        await pool.query(`INSERT INTO impianto (${impiantoColumns.join(', ')}) VALUES ?`, [batch.map((b) => b.impianto)]);
        await pool.query(`INSERT INTO impianto_file (${impiantoFileColumns.join(', ')}) VALUES ?`, [batch.flatMap((b) => b.files)]);
      }
      stats.impianto_file = { rows: files, seededMs: Date.now() - started };
    } else {
      stats.impianto_file = { rows: files, seededMs: 0 };
    }
  } finally {
    await pool.end();
  }
  return { url, stats };
}

async function ensureTable(pool, table, columns, wanted, rowsOf, log) {
  // A load interrupted between dropping and rebuilding the indexes left its rebuild here.
  await pool.query('CREATE TABLE IF NOT EXISTS bench_seed_pending (table_name VARCHAR(64) PRIMARY KEY, rebuild TEXT NOT NULL)');
  const [pending] = await pool.query('SELECT rebuild FROM bench_seed_pending WHERE table_name = ?', [table]);
  const [[{ n, top }]] = await pool.query(`SELECT COUNT(*) AS n, MAX(id) AS top FROM ${mysql.escapeId(table)}`);
  if (pending.length === 0 && Number(n) === wanted && Number(top) === wanted) return { rows: wanted, seededMs: 0 };
  const started = Date.now();
  await pool.query(`TRUNCATE TABLE ${mysql.escapeId(table)}`);
  let rebuild = pending.map((p) => p.rebuild);
  if (rebuild.length === 0 && wanted >= 50_000) {
    rebuild = await dropSecondaryIndexes(pool, table);
  }
  const insert = `INSERT INTO ${mysql.escapeId(table)} (${columns.map((c) => mysql.escapeId(c)).join(', ')}) VALUES ?`;
  let next = 1;
  let done = 0;
  let lastLog = Date.now();
  const worker = async () => {
    while (next <= wanted) {
      const from = next;
      const to = Math.min(from + chunkRows - 1, wanted);
      next = to + 1;
      const rows = [];
      for (let id = from; id <= to; id++) rows.push(...rowsOf(id));
      await pool.query(insert, [rows]);
      done += rows.length;
      if (Date.now() - lastLog > 5000) {
        lastLog = Date.now();
        log(`${table}: ${done.toLocaleString('en')} / ${wanted.toLocaleString('en')} rows`);
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  const loadedMs = Date.now() - started;
  for (const statement of rebuild) await pool.query(statement);
  await pool.query('DELETE FROM bench_seed_pending WHERE table_name = ?', [table]);
  await pool.query(`ANALYZE TABLE ${mysql.escapeId(table)}`);
  const seededMs = Date.now() - started;
  log(`${table}: ${wanted.toLocaleString('en')} rows in ${(seededMs / 1000).toFixed(1)} s (indexes ${((seededMs - loadedMs) / 1000).toFixed(1)} s)`);
  return { rows: wanted, seededMs };
}

/** Drops the table's non-primary indexes and returns the statements that recreate them as they were. */
async function dropSecondaryIndexes(pool, table) {
  const [rows] = await pool.query(
    `SELECT INDEX_NAME AS name, NON_UNIQUE AS nonUnique, COLUMN_NAME AS col, SEQ_IN_INDEX AS seq
       FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME <> 'PRIMARY'
      ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
    [table],
  );
  const byName = new Map();
  for (const r of rows) {
    const entry = byName.get(r.name) ?? { unique: Number(r.nonUnique) === 0, cols: [] };
    entry.cols.push(r.col);
    byName.set(r.name, entry);
  }
  if (byName.size === 0) return [];
  const t = mysql.escapeId(table);
  // One ALTER adds them all: a single pass over the table.
  const rebuild = `ALTER TABLE ${t} ${[...byName].map(([n, e]) => `ADD ${e.unique ? 'UNIQUE ' : ''}INDEX ${mysql.escapeId(n)} (${e.cols.map((c) => mysql.escapeId(c)).join(', ')})`).join(', ')}`;
  await pool.query('REPLACE INTO bench_seed_pending (table_name, rebuild) VALUES (?, ?)', [table, rebuild]);
  await pool.query(`ALTER TABLE ${t} ${[...byName.keys()].map((n) => `DROP INDEX ${mysql.escapeId(n)}`).join(', ')}`);
  return [rebuild];
}

/**
 * The same rows in a SQLite file, as the service migrates and reads it: dates as epoch
 * milliseconds (how knex binds them on better-sqlite3), fold() registered for the indexes.
 * A file that already holds the wanted rows is left alone.
 */
export async function seedSqlite(file, sizes, { root, log = () => {} }) {
  const { connect } = await import(new URL('dist/src/db/connect.js', root));
  const { migrate: run } = await import(new URL('dist/src/db/migrate.js', root));
  const { fold } = await import(new URL('dist/src/db/fold.js', root));
  const { default: Database } = await import('better-sqlite3');
  const count = (db, table) => db.prepare(`SELECT COUNT(*) AS n, MAX(id) AS top FROM ${table}`).get();
  const files = sizes.impianti * (sizes.filesPerRoot + 1);
  if (fs.existsSync(file)) {
    const db = new Database(file, { readonly: true });
    try {
      const ok = count(db, 'soggetto_recapito').n === sizes.soggettoRecapito && count(db, 'caratteristica_gruppo').n === sizes.caratteristicaGruppo && count(db, 'impianto_file').n === files;
      if (ok) return { rows: sizes.soggettoRecapito, seededMs: 0 };
    } catch { /* an older schema: seed afresh */ } finally {
      db.close();
    }
    fs.rmSync(file, { force: true });
  }
  const started = Date.now();
  const knex = connect({ sqliteFile: file });
  try {
    await run(knex);
  } finally {
    await knex.destroy();
  }
  const db = new Database(file);
  db.function('fold', { deterministic: true }, (v) => (typeof v === 'string' ? fold(v) : v));
  const ms = (text) => (text === null ? null : Date.parse(`${text.replace(' ', 'T')}Z`));
  const load = (table, columns, rows) => {
    const insert = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    db.transaction(() => { for (const row of rows()) insert.run(row); })();
    log(`${table}: loaded`);
  };
  load('soggetto_recapito', soggettoRecapitoColumns, function* () { for (let id = 1; id <= sizes.soggettoRecapito; id++) yield soggettoRecapitoRow(id, sizes.soggettoRecapito); });
  load('caratteristica_gruppo', caratteristicaGruppoColumns, function* () { for (let id = 1; id <= sizes.caratteristicaGruppo; id++) yield caratteristicaGruppoRow(id); });
  const impianti = Array.from({ length: sizes.impianti }, (_, i) => impiantoRows(i + 1, sizes.filesPerRoot));
  load('impianto', impiantoColumns, function* () { for (const r of impianti) yield r.impianto; });
  load('impianto_file', impiantoFileColumns, function* () { for (const r of impianti) for (const f of r.files) yield f.map((v, i) => (i === 5 || i === 6 ? ms(v) : v)); });
  db.exec('ANALYZE');
  db.close();
  return { rows: sizes.soggettoRecapito, seededMs: Date.now() - started };
}
