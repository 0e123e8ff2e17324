// The bench's databases: data.mjs's rows at each size, in a MySQL database or a SQLite file,
// migrated by the service's own migrations. A database that already holds the wanted rows is
// left alone, so a second run starts at once.
import fs from 'node:fs';
import mysql from 'mysql2/promise';
import {
  caratteristicaGruppoColumns, caratteristicaGruppoRow, impiantoColumns, impiantoFileColumns, impiantoRows,
  soggettoRecapitoColumns, soggettoRecapitoRow,
} from './data.mjs';
import { appRoot, log, out, serverUrl } from './context.mjs';

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

/** [table, columns, rows] of each table at `size`, in the order they are loaded. */
function* tablesOf(size) {
  const range = function* (n, row) {
    for (let id = 1; id <= n; id++) yield row(id);
  };
  const impianti = Array.from({ length: size.impianti }, (_, i) => impiantoRows(i + 1, size.filesPerRoot));
  yield ['soggetto_recapito', soggettoRecapitoColumns, range(size.soggettoRecapito, (id) => soggettoRecapitoRow(id, size.soggettoRecapito))];
  yield ['caratteristica_gruppo', caratteristicaGruppoColumns, range(size.caratteristicaGruppo, caratteristicaGruppoRow)];
  yield ['impianto', impiantoColumns, impianti.map((r) => r.impianto)];
  yield ['impianto_file', impiantoFileColumns, impianti.flatMap((r) => r.files)];
}

async function migrate(connection) {
  const { connect, disconnect } = await import(new URL('dist/src/db/connect.js', appRoot()));
  const { migrate: run } = await import(new URL('dist/src/db/migrate.js', appRoot()));
  const db = connect(connection);
  try {
    await run(db);
  } finally {
    await disconnect(db);
  }
}

const seeded = new Map();

/** The database of `size` on `engine`, seeded on first use: { engine, url } or { engine, file }. */
export async function prepare(engine, size) {
  const key = `${engine} ${size.name}`;
  if (!seeded.has(key)) seeded.set(key, await (engine === 'mysql' ? seedMysql(size) : seedSqlite(size)));
  return seeded.get(key);
}

/** Row counts of the four tables, or undefined where the schema is not there yet. */
async function counts(query) {
  try {
    const have = [];
    for (const table of ['soggetto_recapito', 'caratteristica_gruppo', 'impianto', 'impianto_file']) have.push(Number((await query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n));
    return String(have);
  } catch {
    return undefined;
  }
}

const wanted = (size) => String([size.soggettoRecapito, size.caratteristicaGruppo, size.impianti, size.impianti * (size.filesPerRoot + 1)]);

async function seedMysql(size) {
  const database = `impianti_${size.name}`;
  const admin = await mysql.createConnection({ ...connectionOf(serverUrl), database: undefined });
  const url = withDatabase(serverUrl, database);
  const query = async (sql, args) => (await admin.query(sql, args))[0];
  await admin.query(`CREATE DATABASE IF NOT EXISTS ${mysql.escapeId(database)} CHARACTER SET utf8mb4`);
  await admin.query(`USE ${mysql.escapeId(database)}`);
  if ((await counts(query)) !== wanted(size)) {
    log(`seeding ${database} (${size.soggettoRecapito.toLocaleString('en')} contacts)`);
    await admin.query(`DROP DATABASE ${mysql.escapeId(database)}`);
    await admin.query(`CREATE DATABASE ${mysql.escapeId(database)} CHARACTER SET utf8mb4`);
    await admin.query(`USE ${mysql.escapeId(database)}`);
    await migrate({ databaseUrl: url });
    const { mysqlTrigramDeferral } = await import(new URL('dist/src/db/substring-index/substring-index-deferred.js', appRoot()));
    for (const [table, columns, rows] of tablesOf(size)) {
      // The trigram index is filled once, as the loader fills it into an empty table.
      const trigrams = mysqlTrigramDeferral(table);
      for (const sql of trigrams.start) await admin.query(sql);
      let batch = [];
      const flush = async () => {
        if (batch.length) await admin.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ?`, [batch]);
        batch = [];
      };
      for (const row of rows) if (batch.push(row) === 4000) await flush();
      await flush();
      const began = performance.now();
      // In one transaction into the empty index, as the loader's: InnoDB then builds it by sorting.
      await admin.query('BEGIN');
      for (const { sql, bindings } of trigrams.beforeCommit('all')) await admin.query(sql, bindings);
      await admin.query('COMMIT');
      if (trigrams.start.length > 0) log(`${database}: ${table}'s trigram index filled in ${Math.round(performance.now() - began)} ms`);
      await admin.query(`ANALYZE TABLE ${table}`);
    }
  }
  await admin.end();
  return { engine: 'mysql', url };
}

/**
 * The same rows in a SQLite file, as the service reads it: dates as epoch milliseconds (how
 * knex binds them on better-sqlite3), fold() registered for the indexes built on it.
 */
async function seedSqlite(size) {
  const file = new URL(`${size.name}.sqlite`, out).pathname;
  const { default: Database } = await import('better-sqlite3');
  if (fs.existsSync(file)) {
    const db = new Database(file, { readonly: true });
    const have = await counts(async (sql) => db.prepare(sql).all());
    db.close();
    if (have === wanted(size)) return { engine: 'sqlite', file };
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  }
  log(`seeding ${file}`);
  await migrate({ sqliteFile: file });
  const { fold } = await import(new URL('dist/src/db/fold.js', appRoot()));
  const db = new Database(file);
  db.function('fold', { deterministic: true }, (v) => (typeof v === 'string' ? fold(v) : v));
  const ms = (text) => (text === null ? null : Date.parse(`${text.replace(' ', 'T')}Z`));
  const { deferSqliteTrigrams } = await import(new URL('dist/src/db/substring-index/substring-index-deferred.js', appRoot()));
  for (const [table, columns, rows] of tablesOf(size)) {
    const insert = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    const dated = table === 'impianto_file' ? (row) => row.map((v, i) => (i === 5 || i === 6 ? ms(v) : v)) : (row) => row;
    db.transaction(() => {
      // The trigram index is filled once, as the loader fills it into an empty table.
      const filled = deferSqliteTrigrams(db, table, 'all');
      for (const row of rows) insert.run(dated(row));
      filled();
    })();
  }
  db.exec('ANALYZE');
  db.close();
  return { engine: 'sqlite', file };
}
