// An embedded file as a busy service leaves it: 100,000 sessions with a refresh token each,
// half of them expired (every other one, as random token hashes interleave them), and
// query rows with accents under the fold() indexes. Built with INSERT ... SELECT from a
// recursive CTE, in about two seconds.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import type { Knex } from 'knex';
import { createTestDb } from './db.js';

export const tokenCount = 100_000;
export const now = Date.UTC(2026, 10, 25, 12);
/** Rows of soggetto_recapito whose recapito folds to `citta…@pec.it`. */
export const accentedRows = 500;

/** Writes the file, checkpointed and closed, and returns its path. */
export async function buildTokenFile(): Promise<{ file: string; remove(): void }> {
  const tdb = await createTestDb('sqlite');
  const db = tdb.knex;
  await db('app_user').insert({ id: 1, user_name: 'anna', user_name_key: 'anna', password_hash: 'x', created_at: new Date(now - 40 * 86400e3) });
  await db.raw(`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
    INSERT INTO soggetto_recapito (soggetto_id, tipo_recapito_id, recapito, codice_esterno)
    SELECT i, 1, CASE WHEN i <= ? THEN 'Città' || i || '@PEC.it' ELSE 'rossi' || i || '@example.it' END, 'C-' || i FROM k`, [2 * accentedRows, accentedRows]);
  await db.raw(`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
    INSERT INTO auth_session (id, user_id, created_at, revoked_at) SELECT lower(hex(randomblob(16))), 1, ? + i, NULL FROM k`, [tokenCount, now - 35 * 86400e3]);
  await db.raw(`INSERT INTO refresh_token (token_hash, session_id, expires_at, spent_at)
    SELECT lower(hex(randomblob(32))), id, CASE WHEN rowid % 2 = 0 THEN ? ELSE ? END, NULL FROM auth_session`, [now - 3600e3, now + 86400e3]);
  await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
  await db.destroy();
  return { file: tdb.sqliteFile!, remove: () => void tdb.drop() };
}

/** What the purge removes from that file: the sessions whose token expired, and their tokens (ON DELETE CASCADE). */
export async function purgeExpired(db: Knex): Promise<void> {
  await db.raw('DELETE FROM auth_session WHERE id IN (SELECT session_id FROM refresh_token WHERE expires_at <= ?)', [now]);
}

/** One digest per table over every row, whatever order the rows are stored in. */
export function tableDigests(conn: Database.Database): Record<string, string> {
  const tables = conn.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  return Object.fromEntries(tables.map((t) => {
    const rows = (conn.prepare(`SELECT * FROM "${t}"`).raw().all() as unknown[][]).map((r) => JSON.stringify(r)).sort();
    return [t, `${rows.length}:${crypto.createHash('sha256').update(rows.join('\n')).digest('hex')}`];
  }));
}

export const copyOf = (file: string, dir: string, name = 'copy.sqlite'): string => {
  const copy = `${dir}/${name}`;
  fs.copyFileSync(file, copy);
  return copy;
};
