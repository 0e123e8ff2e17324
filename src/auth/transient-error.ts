// Retries a transaction that lost a lock race. Concurrent inserts of one unique key can
// make InnoDB pick a deadlock victim (ER_LOCK_DEADLOCK 1213, MySQL manual 17.7.5) even
// though a retry would simply see the duplicate and answer 409; SQLite serialises writers
// on one connection and only reports SQLITE_BUSY after busy_timeout.

const transientCodes = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY']);

export function isTransient(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown } | null;
  return !!e && (transientCodes.has(String(e.code)) || e.errno === 1213);
}

export async function retryTransient<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await work();
    } catch (err) {
      if (i >= attempts || !isTransient(err)) throw err;
    }
  }
}
