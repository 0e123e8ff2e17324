// The built service with WORKERS=2 on a test database, for the tests of what its workers
// share (design.md §10): started with the README's admin, ready once every worker listens,
// and its JSON log lines read back (each request's line names the worker that served it).
import fs from 'node:fs';
import path from 'node:path';
import { startService, type ServiceProcess } from '../reliability/support/service-process.js';
import type { TestDb } from './db.js';

export const admin = { userName: 'admin', password: 'Cambiami-subito-42' };

export type LogLine = Record<string, unknown> & { msg?: string; worker?: number; reqId?: string };

export const logOf = (s: ServiceProcess): LogLine[] =>
  fs.readFileSync(s.logFile, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine);

/** Polls `probe` until it gives a value, or fails naming `what` after `ms`. */
export async function waitFor<T>(probe: () => T | undefined, what: string, ms = 60_000): Promise<T> {
  for (const until = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 50))) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
  }
}

/** WORKERS=2 on `t`'s database with `env` added, its log in test-output/`name`.log, once every worker listens. */
export async function startTwoWorkers(t: TestDb, name: string, env: Record<string, string>): Promise<ServiceProcess> {
  const database: Record<string, string> = t.sqliteFile ? { SQLITE_FILE: t.sqliteFile } : { DATABASE_URL: t.databaseUrl! };
  const s = await startService({
    ...database, WORKERS: '2', SCRYPT_LOG_N: '4', LOG_LEVEL: 'info', ADMIN_USERNAME: admin.userName, ADMIN_PASSWORD: admin.password, ...env,
  }, path.resolve(`test-output/${name}.log`), { readyMs: 90_000 });
  await waitFor(() => logOf(s).find((l) => l.msg === 'every worker listening'), 'every worker listening');
  return s;
}
