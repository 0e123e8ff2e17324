// An online backup of the embedded SQLite file (design.md §9): VACUUM INTO, in a worker
// thread, copies the database as of one commit while the service goes on writing. The
// copy goes to a temporary name beside the target, is synced and checked
// (integrity_check, migration level), and only then renamed to the target, so a backup
// that fails leaves nothing behind and a file under the target's name is always whole.
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ApiError, fail, ok, type Result } from '../../errors/api-error.js';
import { checkSqliteFile } from './sqlite-check.js';
import { absentSideFiles, fsyncPath, removeCreatedSideFiles } from './sqlite-file.js';

export interface Backup {
  readonly file: string;
  readonly bytes: number;
  readonly ms: number;
  readonly migrationLevel: number;
}

type WorkerAnswer = { ok: true } | { ok: false; code: string; message: string };

function vacuumInto(source: string, target: string): Promise<WorkerAnswer> {
  const created = absentSideFiles(source);
  return new Promise<WorkerAnswer>((resolve) => {
    const worker = new Worker(new URL('./sqlite-backup-worker.js', import.meta.url), { workerData: { source, target } });
    let answer: WorkerAnswer | undefined;
    worker.once('message', (m: WorkerAnswer) => (answer = m));
    worker.once('error', (err) => (answer ??= { ok: false, code: 'WORKER', message: err.message }));
    worker.once('exit', () => resolve(answer ?? { ok: false, code: 'WORKER', message: 'the backup worker exited without an answer' }));
  }).then((answer) => {
    // The worker's read-only connection leaves behind the WAL files it created; sides
    // that existed before belong to the live database and stay.
    removeCreatedSideFiles(source, created);
    return answer;
  });
}

const refuse = (message: string) => fail<Backup>(ApiError.field('InvalidValue', 'FILE', message));
const noRoom = (code: string, message: string) => code === 'SQLITE_FULL' || code === 'ENOSPC' || /disk is full|no space/i.test(message);

/** Copies the database at `source` to `target`, which must not exist yet, in an existing directory. */
export async function backupSqlite(source: string, target: string): Promise<Result<Backup>> {
  const started = performance.now();
  if (!fs.existsSync(source)) return refuse(`there is no database at ${source}`);
  const dir = path.dirname(path.resolve(target));
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return refuse(`the directory ${dir} does not exist`);
  if (fs.existsSync(target)) return refuse(`${target} exists already; a backup never overwrites a file`);
  const partial = path.join(dir, `.${path.basename(target)}.partial-${process.pid}`);
  const cleanUp = () => fs.rmSync(partial, { force: true });
  try {
    const copied = await vacuumInto(source, partial);
    if (!copied.ok) {
      cleanUp();
      if (noRoom(copied.code, copied.message)) return fail(ApiError.of('ServiceUnavailable', `no space left in ${dir} for the backup (${copied.message})`));
      return fail(ApiError.of('ServiceUnavailable', `the backup of ${source} failed: ${copied.message}`));
    }
    fsyncPath(partial);
    const sound = checkSqliteFile(partial);
    if (!sound.ok) {
      cleanUp();
      return fail(ApiError.of('ServiceUnavailable', `the copy of ${source} failed its check, so ${target} was not written: ${sound.error.message}`));
    }
    fs.renameSync(partial, target);
    fsyncPath(dir);
    return ok({ file: target, bytes: sound.value.bytes, ms: performance.now() - started, migrationLevel: sound.value.migrationLevel });
  } catch (err) {
    cleanUp();
    const e = err as NodeJS.ErrnoException;
    if (noRoom(e.code ?? '', e.message)) return fail(ApiError.of('ServiceUnavailable', `no space left in ${dir} for the backup (${e.message})`));
    return fail(ApiError.of('ServiceUnavailable', `the backup of ${source} failed: ${e.message}`));
  }
}
