// MySQL's named locks (GET_LOCK): held by one connection, freed by the server if that
// connection dies, so a node that crashes mid-work never leaves the others locked out.
// Used where the nodes of one deployment must take turns (migrations, the purge).
import type { Knex } from 'knex';

/**
 * Runs `work` while this node holds the lock `name`, waiting up to `waitSeconds` for it
 * (0: try once). Resolves `{ held: false }` without running `work` when another node kept it.
 */
export async function withNamedLock<T>(db: Knex, name: string, waitSeconds: number, work: () => Promise<T>): Promise<{ held: true; value: T } | { held: false }> {
  const conn = await db.client.acquireConnection();
  try {
    const [rows] = (await db.raw('SELECT GET_LOCK(?, ?) AS got', [name, waitSeconds]).connection(conn)) as [Array<{ got: number | string | null }>];
    if (Number(rows[0]?.got) !== 1) return { held: false };
    try {
      return { held: true, value: await work() };
    } finally {
      await db.raw('SELECT RELEASE_LOCK(?)', [name]).connection(conn);
    }
  } finally {
    await db.client.releaseConnection(conn);
  }
}
