// "The database is unchanged": every table's row count and a SHA-256 over its rows,
// taken before and after a run. Rows are sorted by their JSON text, so the checksum
// does not depend on the order the engine happens to return them in.
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { dialectOf } from '../../../src/db/dialect.js';

export type Snapshot = Record<string, { rows: number; sha256: string }>;

export async function tableNames(db: Knex): Promise<string[]> {
  if (dialectOf(db) === 'mysql') {
    const [rows] = (await db.raw('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()')) as [Array<{ name: string }>];
    return rows.map((r) => r.name).sort();
  }
  const rows = (await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")) as Array<{ name: string }>;
  return rows.map((r) => r.name).sort();
}

export async function snapshot(db: Knex): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const table of await tableNames(db)) {
    const rows = (await db(table).select('*')) as Array<Record<string, unknown>>;
    const lines = rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (v instanceof Date ? v.toISOString() : Buffer.isBuffer(v) ? v.toString('hex') : v))).sort();
    out[table] = { rows: rows.length, sha256: crypto.createHash('sha256').update(lines.join('\n')).digest('hex') };
  }
  return out;
}
