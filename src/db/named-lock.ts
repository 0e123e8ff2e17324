// MySQL's named locks (GET_LOCK): held by one connection, freed by the server if that
// connection dies, so a node that crashes mid-work never leaves the others locked out.
// Used where the nodes of one deployment must take turns (migrations, the purge).
import type { Knex } from 'knex';

/**
 * Runs `work` while this node holds the lock `name`, waiting up to `waitSeconds` for it
 * (0: try once). Resolves `{ held: false }` without running `work` when another node kept it.
 * The lock's connection is held through a Knex transaction, Knex's public way to keep one
 * connection; the transaction touches no table, so it locks nothing `work` needs.
 */
export async function withNamedLock<T>(db: Knex, name: string, waitSeconds: number, work: () => Promise<T>): Promise<{ held: true; value: T } | { held: false }> {
  return db.transaction(async (trx) => {
    const [rows] = (await trx.raw('SELECT GET_LOCK(?, ?) AS got', [name, waitSeconds])) as [Array<{ got: number | string | null }>];
    if (Number(rows[0]?.got) !== 1) return { held: false as const };
    try {
      return { held: true as const, value: await work() };
    } finally {
      await trx.raw('SELECT RELEASE_LOCK(?)', [name]);
    }
  });
}
