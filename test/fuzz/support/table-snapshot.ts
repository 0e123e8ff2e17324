// "The database is unchanged": every table's row count and a SHA-256 over its rows,
// taken before and after a run. Rows are sorted by their JSON text, so the checksum
// does not depend on the order the engine happens to return them in.
import crypto from 'node:crypto';
import type { Database } from '../../../src/db/database.js';

export type Snapshot = Record<string, { rows: number; sha256: string }>;

export async function tableNames(database: Database): Promise<string[]> {
  const db = database.knex;
  if (database.dialect === 'mysql') {
    const [rows] = (await db.raw('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()')) as [Array<{ name: string }>];
    return rows.map((r) => r.name).sort();
  }
  const rows = (await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")) as Array<{ name: string }>;
  return rows.map((r) => r.name).sort();
}

export async function snapshot(database: Database): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const table of await tableNames(database)) {
    const rows = (await database.knex(table).select('*')) as Array<Record<string, unknown>>;
    const lines = rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (v instanceof Date ? v.toISOString() : Buffer.isBuffer(v) ? v.toString('hex') : v))).sort();
    out[table] = { rows: rows.length, sha256: crypto.createHash('sha256').update(lines.join('\n')).digest('hex') };
  }
  return out;
}
