// Triggers a bulk write takes off inside its SQLite transaction and puts back before the commit
// (DDL is transactional there, so a rollback brings them back too): the table versions' and the
// substring index's (design.md §8), each of which does once what its triggers do per row.
import type Database from 'better-sqlite3';
import type { Knex } from 'knex';

type Trigger = { name: string; sql: string };

const listSql = (names: readonly string[]) => `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (${names.map(() => '?').join(', ')})`;

/** On a better-sqlite3 connection: drops the `names` triggers there are; returns what creates them again. */
export function triggersOff(conn: Database.Database, names: readonly string[]): () => void {
  if (names.length === 0) return () => undefined;
  const triggers = conn.prepare(listSql(names)).all(...names) as Trigger[];
  for (const t of triggers) conn.exec(`DROP TRIGGER "${t.name}"`);
  return () => {
    for (const t of triggers) conn.exec(t.sql);
  };
}

/** The same inside a Knex transaction. */
export async function triggersOffIn(trx: Knex.Transaction, names: readonly string[]): Promise<() => Promise<void>> {
  if (names.length === 0) return async () => undefined;
  const triggers = (await trx.raw(listSql(names), [...names])) as Trigger[];
  for (const t of triggers) await trx.raw(`DROP TRIGGER "${t.name}"`);
  return async () => {
    for (const t of triggers) await trx.raw(t.sql);
  };
}
