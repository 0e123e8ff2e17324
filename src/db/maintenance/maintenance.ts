// The planner's statistics kept fresh by the service itself (design.md §8): SQLite's own
// PRAGMA optimize, and on MySQL/MariaDB an ANALYZE TABLE of each table whose row count
// moved a lot since its last analysis. InnoDB resamples on its own only in the background
// and only after a tenth of a table changed; ANALYZE makes it at once, and it is kept to
// the tables that moved because it also evicts the table from the server's caches.
import type { Knex } from 'knex';
import type { Database } from '../database.js';

export interface MaintenanceResult {
  /** The tables whose statistics were gathered again. */
  readonly analyzed: readonly string[];
  /** SQLite: pages free inside the file, which only a compaction returns (design.md §8). */
  readonly freePages?: number;
}

export interface Maintainer {
  turn(): Promise<MaintenanceResult>;
}

/** A change of a fifth of the rows, and at least a thousand, is a lot. */
export const movedALot = (then: number, now: number): boolean => Math.abs(now - then) >= Math.max(1000, then / 5);

export function createMaintainer(database: Database): Maintainer {
  const db = database.knex;
  if (database.dialect === 'sqlite') return { turn: () => optimizeSqlite(db) };
  // Rows at this node's last analysis of each table, or when the node first saw it.
  const baseline = new Map<string, number>();
  return { turn: () => analyzeMoved(db, baseline) };
}

async function optimizeSqlite(db: Knex): Promise<MaintenanceResult> {
  // 0x10000: every table, not only those this connection queried (the read path has a
  // connection of its own); 0x02: ANALYZE those never analyzed or grown or shrunk a lot
  // since; 0x01 first lists what it is about to do, for the log line.
  const planned = (await db.raw('PRAGMA optimize(0x10003)')) as Array<{ optimize: string }>;
  await db.raw('PRAGMA optimize(0x10002)');
  const analyzed = planned.map((r) => /"main"\."(.*)"$/.exec(r.optimize)?.[1]?.replaceAll('""', '"') ?? r.optimize);
  const [free] = (await db.raw('PRAGMA freelist_count')) as Array<{ freelist_count: number }>;
  return { analyzed, freePages: free?.freelist_count ?? 0 };
}

async function tableRows(db: Knex): Promise<Map<string, number>> {
  // TABLE_ROWS is InnoDB's running count, free to read; MySQL 8 would otherwise serve it from a day-old cache.
  const [rows] = (await db.raw(
    "SELECT /*+ SET_VAR(information_schema_stats_expiry = 0) */ TABLE_NAME AS name, TABLE_ROWS AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE'",
  )) as [Array<{ name: string; n: number | string | null }>];
  return new Map(rows.map((r) => [r.name, Number(r.n ?? 0)]));
}

async function analyzeMoved(db: Knex, baseline: Map<string, number>): Promise<MaintenanceResult> {
  const now = await tableRows(db);
  const moved = [...now].filter(([name, n]) => baseline.has(name) && movedALot(baseline.get(name)!, n)).map(([name]) => name);
  for (const [name, n] of now) if (!baseline.has(name)) baseline.set(name, n);
  for (const name of moved) {
    const [report] = (await db.raw('ANALYZE TABLE ??', [name])) as [Array<{ Msg_type: string; Msg_text: string }>];
    const failed = report.find((r) => r.Msg_type === 'error');
    if (failed) throw new Error(`ANALYZE TABLE ${name}: ${failed.Msg_text}`);
  }
  // ANALYZE replaces the running count with a sampled estimate: the next turn compares with that.
  const after = moved.length > 0 ? await tableRows(db) : now;
  for (const name of moved) baseline.set(name, after.get(name) ?? now.get(name)!);
  return { analyzed: moved };
}
