// Scheduled backups (design.md §9): BACKUP_INTERVAL_S apart into BACKUP_DIR, the oldest
// beyond BACKUP_KEEP deleted, one log line each, /metrics with the last success, its
// duration and size, and the failures; a failed backup keeps no file and touches neither
// the live database nor earlier backups. The built service runs as an operator runs it.
import { expect } from 'chai';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { backupName, scheduleBackups } from '../../src/db/maintenance/backup-schedule.js';
import { connect, disconnect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { startService } from '../reliability/support/service-process.js';

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const sample = (text: string, name: string): number | undefined => {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};
const logLines = (file: string, msg: string) =>
  fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['msg'] === msg);

describe('scheduled backups of the SQLite file', function () {
  this.timeout(60_000);
  let dir: string;
  let live: string;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-schedule-'));
    live = path.join(dir, 'live.sqlite');
    const db = connect({ sqliteFile: live });
    await migrate(db);
    await disconnect(db);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps the newest BACKUP_KEEP backups, deleting the oldest only after a backup succeeded', async () => {
    const backups = path.join(dir, 'backups');
    let t = Date.parse('2026-11-27T07:00:00.000Z');
    const schedule = scheduleBackups({ sqliteFile: live, dir: backups, intervalS: 0, keep: 2, logger: pino({ level: 'silent' }), clock: () => new Date((t += 1000)) });
    for (let i = 0; i < 3; i++) await schedule.runOnce();
    expect(fs.readdirSync(backups).sort()).to.deep.equal([
      backupName(new Date('2026-11-27T07:00:03.000Z')),
      backupName(new Date('2026-11-27T07:00:05.000Z')),
    ]);
    expect(schedule.stats()).to.include({ successes: 3, failures: 0 });
    expect(schedule.stats().lastBytes).to.equal(fs.statSync(path.join(backups, backupName(new Date('2026-11-27T07:00:05.000Z')))).size);
    // A failing turn (the directory has become a file's child) deletes nothing.
    const kept = fs.readdirSync(backups).map((n) => sha(path.join(backups, n)));
    const blocked = scheduleBackups({ sqliteFile: live, dir: path.join(backups, backupName(new Date('2026-11-27T07:00:05.000Z')), 'sub'), intervalS: 0, keep: 1, logger: pino({ level: 'silent' }), clock: () => new Date() });
    await blocked.runOnce();
    expect(blocked.stats()).to.include({ successes: 0, failures: 1, lastSuccessS: 0 });
    expect(fs.readdirSync(backups).map((n) => sha(path.join(backups, n)))).to.deep.equal(kept);
  });

  it('runs in the service: one log line per backup, /metrics, BACKUP_KEEP files', async () => {
    const backups = path.join(dir, 'backups');
    const log = path.join(dir, 'service.log');
    // What a backup cut short by kill -9 leaves; the service clears it at start.
    fs.mkdirSync(backups);
    fs.writeFileSync(path.join(backups, '.impianti-2026-11-27T07-00-00.000Z.sqlite.partial-4242'), 'half a copy');
    fs.writeFileSync(path.join(backups, 'notes.txt'), 'an operator\'s own file');
    const s = await startService({ SQLITE_FILE: live, BACKUP_DIR: backups, BACKUP_INTERVAL_S: '1', BACKUP_KEEP: '2', LOG_LEVEL: 'info' }, log);
    try {
      const until = Date.now() + 20_000;
      while (logLines(log, 'backup taken').length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      const taken = logLines(log, 'backup taken');
      expect(taken.length).to.be.at.least(3);
      expect(taken[0]).to.include.keys('backup', 'bytes', 'ms', 'migrationLevel', 'deleted');
      expect(fs.readdirSync(backups).filter((n) => n.endsWith('.sqlite'))).to.have.length(2);
      // The running service's own partial file may be there: the next backup is under way.
      expect(fs.readdirSync(backups).filter((n) => !n.endsWith('.sqlite') && !n.endsWith(`.partial-${s.pid}`))).to.deep.equal(['notes.txt']);
      expect(sample(metrics, 'backup_last_success_timestamp_seconds')).to.be.within(Date.now() / 1000 - 5, Date.now() / 1000 + 1);
      expect(sample(metrics, 'backup_last_size_bytes')).to.be.greaterThan(0);
      expect(sample(metrics, 'backup_last_duration_seconds')).to.be.greaterThan(0);
      expect(sample(metrics, 'backup_successes_total')).to.be.at.least(3);
      expect(sample(metrics, 'backup_failures_total')).to.equal(0);
    } finally {
      await s.stop();
    }
  });

  it('counts and logs a failed backup, and serves on with the live database untouched', async () => {
    const blocker = path.join(dir, 'not-a-directory');
    fs.writeFileSync(blocker, 'a file where the backup directory should be');
    const log = path.join(dir, 'service.log');
    const s = await startService({ SQLITE_FILE: live, BACKUP_DIR: path.join(blocker, 'backups'), BACKUP_INTERVAL_S: '1', LOG_LEVEL: 'info' }, log);
    try {
      const until = Date.now() + 20_000;
      while (logLines(log, 'backup failed; the live database and earlier backups are untouched').length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      expect(sample(metrics, 'backup_failures_total')).to.be.at.least(2);
      expect(sample(metrics, 'backup_last_success_timestamp_seconds')).to.equal(0);
      expect(logLines(log, 'backup failed; the live database and earlier backups are untouched')[0]!['reason']).to.match(/ENOTDIR|not a directory/);
      expect((await fetch(`${s.url}/ready`)).status).to.equal(200);
    } finally {
      await s.stop();
    }
    expect(fs.readFileSync(blocker, 'utf8')).to.equal('a file where the backup directory should be');
  });
});
