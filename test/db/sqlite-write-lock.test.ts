// Write transactions on one SQLite file shared by several processes (design.md §10): a
// transaction that reads before it writes fails at once with SQLITE_BUSY when another
// connection holds the write lock, whatever busy_timeout says; one begun by
// writeTransaction takes the lock first, waits for the other writer, and commits.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { connect, disconnect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { writeTransaction } from '../../src/db/write-transaction.js';
import type { Database } from '../../src/db/database.js';
import type { Knex } from '../support/db.js';

const require = createRequire(import.meta.url);
const dialects = (process.env['DIALECTS'] ?? 'sqlite').split(',');

(dialects.includes('sqlite') ? describe : describe.skip)('SQLite write transactions of several processes [sqlite]', () => {
  let dir: string;
  let file: string;
  let first: Database;
  let second: Database;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-write-lock-'));
    file = path.join(dir, 'db.sqlite');
    first = connect({ sqliteFile: file });
    await migrate(first);
    second = connect({ sqliteFile: file });
  });
  after(async () => {
    if (first) await disconnect(first);
    if (second) await disconnect(second);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Holds the write lock for `ms` from another thread (better-sqlite3 waits for a lock on the
   * thread that asked, so the holder must run elsewhere, as another worker process does)
   * while `during` runs here; resolves what `during` did.
   */
  async function whileLocked<T>(ms: number, during: () => Promise<T>): Promise<PromiseSettledResult<T>> {
    const holder = new Worker(`
      const { parentPort, workerData } = require('node:worker_threads');
      const conn = new (require(workerData.driver))(workerData.file);
      conn.exec('BEGIN IMMEDIATE');
      conn.prepare("INSERT INTO rate_limit_hit (bucket, client_key, window_start, hits) VALUES ('lock', ?, 0, 1)").run('holder-' + Math.random());
      parentPort.postMessage('locked');
      setTimeout(() => { conn.exec('COMMIT'); conn.close(); }, workerData.ms);
    `, { eval: true, workerData: { driver: require.resolve('better-sqlite3'), file, ms } });
    await new Promise((resolve) => holder.once('message', resolve));
    const [outcome] = await Promise.allSettled([during()]);
    await new Promise((resolve) => holder.once('exit', resolve));
    return outcome;
  }

  const readThenWrite = (trx: Knex.Transaction, key: string) =>
    trx('rate_limit_hit').where({ bucket: 'lock' }).count({ n: '*' })
      .then(() => trx('rate_limit_hit').insert({ bucket: 'lock', client_key: key, window_start: 0, hits: 1 }));

  it('a plain transaction that reads first fails with SQLITE_BUSY at its first write', async () => {
    const outcome = await whileLocked(300, () => second.knex.transaction((trx) => readThenWrite(trx, 'plain')));
    expect(outcome.status).to.equal('rejected');
    expect(String((outcome as PromiseRejectedResult).reason)).to.match(/SQLITE_BUSY|database is locked/);
  });

  it('writeTransaction waits under busy_timeout for the other writer and commits', async () => {
    const started = performance.now();
    const outcome = await whileLocked(300, () => writeTransaction(second, (trx) => readThenWrite(trx, 'immediate')));
    expect(outcome.status, String((outcome as PromiseRejectedResult).reason)).to.equal('fulfilled');
    expect(performance.now() - started).to.be.at.least(250);
    expect(await first.knex('rate_limit_hit').where({ bucket: 'lock', client_key: 'immediate' }).count({ n: '*' })).to.deep.equal([{ n: 1 }]);
  });
});
