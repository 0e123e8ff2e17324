// Backups taken while the service writes, and the restore round trip, on each engine
// (design.md §9). SQLite: `npm run backup` three times under the write load; each copy
// holds every write acknowledged before it began. Then `npm run restore` of the last one
// with the service stopped, and the service started on it finds those writes, users sign
// in. MariaDB: the README's `mariadb-dump --single-transaction` once under the load,
// loaded into a fresh database with `mariadb`, and checked the same way.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../support/run-cli.js';
import { accountWrites, checkLedger, lostTotal, newLedger, writesIn, type Ledger } from './support/account-writes.js';
import { mariadbEngine, readMysql, readSqlite, sqliteEngine, type CrashEngine, type MariaDbEngine } from './support/crash-engines.js';
import { record, round } from './support/figures.js';
import { startService, type ServiceProcess } from './support/service-process.js';
import { sleep } from './support/traffic.js';

const serviceEnv = { DEFAULT_ROLES: 'ApiUser', SCRYPT_LOG_N: '10', RATE_LIMIT_REGISTER_PER_MIN: '0', RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '0', PURGE_INTERVAL_S: '0' };
const writers = 6;

/** Writes until `n` more users are acknowledged (at most 30 s). */
async function untilMoreUsers(ledger: Ledger, n: number): Promise<void> {
  const target = ledger.users.size + n;
  const until = performance.now() + 30_000;
  while (ledger.users.size < target && performance.now() < until) await sleep(50);
  expect(ledger.users.size, 'the write load goes on').to.be.at.least(target);
}

/** Users of the ledger acknowledged before `before` who sign in with their password. */
async function signIns(url: string, ledger: Ledger, before: number, sample: number): Promise<{ ok: number; of: number }> {
  const users = [...ledger.users].filter(([, at]) => at < before).map(([u]) => u).slice(-sample);
  let ok = 0;
  for (const userName of users) {
    const res = await fetch(`${url}/auth/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName, password: 'password-of-a-writer' }) });
    if (res.status === 200) ok++;
  }
  return { ok, of: users.length };
}

describe('reliability: backups under load and the restore round trip (SQLite)', function () {
  this.timeout(300_000);
  let engine: CrashEngine;
  let service: ServiceProcess | undefined;
  before(async () => { engine = await sqliteEngine(); });
  after(async () => { await service?.stop(); await engine?.close(); });

  it('copies every write acknowledged before each backup began, and restores it', async () => {
    const file = engine.env['SQLITE_FILE']!;
    const backups = path.join(path.dirname(file), 'backups');
    fs.mkdirSync(backups);
    const log = path.resolve('test-output/reliability-backup-sqlite.log');
    service = await startService({ ...engine.env, ...serviceEnv }, log);
    const ledger = newLedger();
    let stop = false;
    const url = service.url;
    const load = accountWrites(() => url, ledger, writers, () => stop);
    const taken: Array<{ file: string; began: number; ms: number; bytes: number; acknowledged: number; lost: number }> = [];
    try {
      for (let i = 0; i < 3; i++) {
        await untilMoreUsers(ledger, 6);
        const began = performance.now();
        const target = path.join(backups, `under-load-${i}.sqlite`);
        const run = await runCli('backup', [target], engine.env);
        expect(run.stderr).to.equal('');
        expect(run.code).to.equal(0);
        const ms = performance.now() - began;
        const conn = readSqlite(target);
        let check;
        try {
          check = await checkLedger(async (sql) => conn.prepare(sql).all() as Array<Record<string, unknown>>, ledger, began);
          expect(conn.pragma('integrity_check', { simple: true })).to.equal('ok');
        } finally {
          conn.close();
        }
        taken.push({ file: target, began, ms, bytes: fs.statSync(target).size, acknowledged: check.acknowledged, lost: lostTotal(check) + check.usersWithoutRoles + check.liveSessionsWithoutToken });
      }
      await untilMoreUsers(ledger, 5);
    } finally {
      stop = true;
      await load;
    }
    expect(await service.stop()).to.equal(0);
    service = undefined;

    // The restore round trip: the last backup in place of the live file, the service on it.
    const last = taken.at(-1)!;
    const restoreStarted = performance.now();
    const restore = await runCli('restore', [last.file], engine.env);
    const restoreMs = performance.now() - restoreStarted;
    expect(restore.stderr).to.equal('');
    expect(restore.code).to.equal(0);
    const kept = /the replaced database is (.+)\n$/.exec(restore.stdout)![1]!;
    const keptConn = readSqlite(kept);
    const keptCheck = await checkLedger(async (sql) => keptConn.prepare(sql).all() as Array<Record<string, unknown>>, ledger).finally(() => keptConn.close());
    service = await startService({ ...engine.env, ...serviceEnv }, log, { append: true });
    const restored = await engine.reading((q) => checkLedger(q, ledger, last.began));
    const signedIn = await signIns(service.url, ledger, last.began, 20);
    const afterBackup = writesIn(ledger) - writesIn(ledger, last.began);

    record('backup-sqlite', 'Backups under load and the restore round trip (SQLite, npm run backup / restore)', {
      'backups taken under load (6 client loops writing)': taken.length,
      'writes acknowledged before each backup began': taken.map((t) => t.acknowledged).join(' / '),
      'of those missing from the backup (lost or half-written)': taken.map((t) => t.lost).join(' / '),
      'backup time, command to exit (ms)': taken.map((t) => round(t.ms)).join(' / '),
      'backup size (bytes)': taken.map((t) => t.bytes).join(' / '),
      'restore, command to exit (ms)': round(restoreMs),
      'writes acknowledged before the restored backup, found after the restore': `${restored.acknowledged - lostTotal(restored)} of ${restored.acknowledged}`,
      'users of the restored backup signing in': `${signedIn.ok} of ${signedIn.of}`,
      'writes made after the backup, kept in the replaced file beside it': `${keptCheck.acknowledged - lostTotal(keptCheck)} of ${keptCheck.acknowledged} (${afterBackup} after the backup)`,
    });
    expect(taken.map((t) => t.lost)).to.deep.equal([0, 0, 0]);
    expect(taken.every((t) => t.acknowledged > 0)).to.equal(true);
    expect(restored.lost).to.deep.equal({ users: 0, sessions: 0, revocations: 0, tokens: 0, spends: 0 });
    expect(signedIn.of).to.be.greaterThan(0);
    expect(signedIn.ok).to.equal(signedIn.of);
    expect(lostTotal(keptCheck)).to.equal(0);
    expect(afterBackup).to.be.greaterThan(0);
  });
});

describe('reliability: mariadb-dump under load and its restore (MariaDB)', function () {
  this.timeout(300_000);
  let engine: MariaDbEngine;
  let service: ServiceProcess | undefined;
  before(async () => { engine = await mariadbEngine(); });
  after(async () => { await service?.stop(); await engine?.close(); });

  it('dumps every write acknowledged before the dump began, and they are all in the restored database', async () => {
    const log = path.resolve('test-output/reliability-dump-mariadb.log');
    service = await startService({ ...engine.env, ...serviceEnv }, log);
    const ledger = newLedger();
    let stop = false;
    const url = service.url;
    const load = accountWrites(() => url, ledger, writers, () => stop);
    const dumpFile = path.join(engine.server.dir, 'impianti.sql');
    const client = ['--protocol=TCP', '-h127.0.0.1', `-P${engine.server.port}`, '-uroot'];
    let began = 0;
    let dumpMs = 0;
    try {
      await untilMoreUsers(ledger, 6);
      began = performance.now();
      // The README's command; the load goes on while it runs.
      const out = fs.openSync(dumpFile, 'w');
      const dump = spawnSync('mariadb-dump', [...client, '--single-transaction', '--quick', '--routines', '--triggers', '--events', engine.database], { stdio: ['ignore', out, 'pipe'], encoding: 'utf8' });
      fs.closeSync(out);
      dumpMs = performance.now() - began;
      expect(dump.stderr).to.equal('');
      expect(dump.status).to.equal(0);
      await untilMoreUsers(ledger, 5);
    } finally {
      stop = true;
      await load;
    }
    await service.stop();
    service = undefined;

    const restoreStarted = performance.now();
    expect(spawnSync('mariadb', [...client, '-e', 'CREATE DATABASE restored CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci'], { encoding: 'utf8' }).status).to.equal(0);
    const load2 = spawnSync('mariadb', [...client, 'restored'], { input: fs.readFileSync(dumpFile), encoding: 'utf8' });
    const restoreMs = performance.now() - restoreStarted;
    expect(load2.stderr).to.equal('');
    expect(load2.status).to.equal(0);
    const restoredUrl = `${engine.server.url}/restored`;
    const restored = await readMysql(restoredUrl, (q) => checkLedger(q, ledger, began));
    service = await startService({ DATABASE_URL: restoredUrl, ...serviceEnv }, log, { append: true });
    const signedIn = await signIns(service.url, ledger, began, 20);

    record('dump-mariadb', 'mariadb-dump --single-transaction under load and its restore (private MariaDB)', {
      'writes acknowledged before the dump began': restored.acknowledged,
      'of those found in the restored database': restored.acknowledged - lostTotal(restored),
      'half-written in the restored database': restored.usersWithoutRoles + restored.liveSessionsWithoutToken,
      'dump time (ms) / size (bytes)': `${round(dumpMs)} / ${fs.statSync(dumpFile).size}`,
      'restore into a fresh database (ms)': round(restoreMs),
      'users of the dump signing in on the restored database': `${signedIn.ok} of ${signedIn.of}`,
    });
    expect(restored.acknowledged).to.be.greaterThan(0);
    expect(restored.lost).to.deep.equal({ users: 0, sessions: 0, revocations: 0, tokens: 0, spends: 0 });
    expect(restored.usersWithoutRoles + restored.liveSessionsWithoutToken).to.equal(0);
    expect(signedIn.of).to.be.greaterThan(0);
    expect(signedIn.ok).to.equal(signedIn.of);
  });
});
