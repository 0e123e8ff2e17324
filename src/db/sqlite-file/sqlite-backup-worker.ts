// Runs VACUUM INTO off the main thread (design.md §9): better-sqlite3 runs each statement
// to its end on the calling thread, and a copy of a large file would stall every request.
// The source is opened read-only; the search indexes it rebuilds need the fold function.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { prepareSqlite } from '../connect.js';

const { source, target } = workerData as { source: string; target: string };
let conn: Database.Database | undefined;
try {
  conn = new Database(source, { readonly: true, fileMustExist: true });
  // A WAL reader waits only while another connection recovers the WAL index after a crash.
  conn.pragma('busy_timeout = 5000');
  prepareSqlite(conn);
  // One read transaction: the copy is the database as of one commit, while writers go on.
  conn.prepare('VACUUM INTO ?').run(target);
  parentPort!.postMessage({ ok: true });
} catch (err) {
  const e = err as { code?: string; message?: string };
  parentPort!.postMessage({ ok: false, code: e.code ?? 'ERROR', message: e.message ?? String(err) });
} finally {
  conn?.close();
}
