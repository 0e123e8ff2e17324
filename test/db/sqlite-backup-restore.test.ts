// npm run backup and npm run restore as an operator runs them (design.md §9): the built
// CLIs as child processes against a SQLite file, with the built service holding it where
// the case needs a running server. Every refusal is one line on stderr, a non-zero exit,
// and leaves the live file, the target directory and earlier backups as they were.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { connect, disconnect } from '../../src/db/connect.js';
import { migrate, migrationNames } from '../../src/db/migrate.js';
import { requireOfMachine } from '../support/machine.js';
import { runCli } from '../support/run-cli.js';
import { startService } from '../reliability/support/service-process.js';

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const oneLine = (text: string) => text.trim().split('\n').length === 1;

/** A migrated database with one user of its own name, closed. */
async function makeDatabase(file: string, userName: string): Promise<void> {
  const db = connect({ sqliteFile: file });
  await migrate(db);
  await db.knex('app_user').insert({ user_name: userName, user_name_key: userName, password_hash: 'x', created_at: new Date() });
  await disconnect(db);
}

function userNames(file: string): string[] {
  const conn = new Database(file, { readonly: true });
  try {
    return (conn.prepare('SELECT user_name FROM app_user ORDER BY id').all() as Array<{ user_name: string }>).map((r) => r.user_name);
  } finally {
    conn.close();
  }
}

describe('backup and restore of the SQLite file (CLI)', function () {
  this.timeout(60_000);
  let dir: string;
  let live: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-backup-'));
    live = path.join(dir, 'live.sqlite');
    env = { SQLITE_FILE: live };
    await makeDatabase(live, 'anna');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('copies the database while a server holds and writes it, checked, under the name asked for only', async () => {
    const server = await startService({ SQLITE_FILE: live, RATE_LIMIT_REGISTER_PER_MIN: '0', SCRYPT_LOG_N: '4' }, path.join(dir, 'service.log'));
    try {
      const registered = await fetch(`${server.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: 'bruno', password: 'password-bruno' }) });
      expect(registered.status).to.equal(200);
      const target = path.join(dir, 'copy.sqlite');
      const run = await runCli('backup', [target], env);
      expect(run.stderr).to.equal('');
      expect(run.code).to.equal(0);
      expect(run.stdout).to.match(new RegExp(`^backed up .* to ${target}: \\d+ bytes in \\d+ ms, integrity ok, migration level ${migrationNames.length}\\n$`));
      expect(userNames(target)).to.deep.equal(['anna', 'bruno']);
      expect(fs.readdirSync(dir).filter((n) => n.includes('partial'))).to.deep.equal([]);
    } finally {
      await server.stop();
    }
  });

  const refusedBackups: Array<[string, (d: string) => string, RegExp]> = [
    ['a missing directory', (d) => path.join(d, 'missing', 'copy.sqlite'), /^backup failed: the directory .*missing does not exist$/],
    ['an existing file', (d) => { fs.writeFileSync(path.join(d, 'old.sqlite'), 'keep me'); return path.join(d, 'old.sqlite'); }, /^backup failed: .*old\.sqlite exists already; a backup never overwrites a file$/],
  ];
  for (const [name, target, message] of refusedBackups) {
    it(`refuses a backup to ${name} with one line, exit 1, nothing written`, async () => {
      const file = target(dir);
      const before = fs.readdirSync(dir).sort();
      const liveSum = sha(live);
      const run = await runCli('backup', [file], env);
      expect(run.code).to.equal(1);
      expect(oneLine(run.stderr), run.stderr).to.equal(true);
      expect(run.stderr.trim()).to.match(message);
      expect(fs.readdirSync(dir).sort()).to.deep.equal(before);
      expect(sha(live)).to.equal(liveSum);
    });
  }

  it('refuses a backup onto a full disk with one line, exit 1, no partial file left', async function () {
    const mount = path.join(dir, 'small');
    fs.mkdirSync(mount);
    // A 64 KiB tmpfs cannot hold the ~150 KB copy. Mounting needs root (CAP_SYS_ADMIN).
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mount], { encoding: 'utf8' });
    requireOfMachine(mounted.status === 0, `mounting a tmpfs needs root (CAP_SYS_ADMIN): ${mounted.stderr.trim()}`);
    try {
      const liveSum = sha(live);
      const run = await runCli('backup', [path.join(mount, 'copy.sqlite')], env);
      expect(run.code).to.equal(1);
      expect(oneLine(run.stderr), run.stderr).to.equal(true);
      expect(run.stderr).to.match(/^backup failed: no space left in .*small for the backup/);
      expect(fs.readdirSync(mount)).to.deep.equal([]);
      expect(sha(live)).to.equal(liveSum);
    } finally {
      spawnSync('umount', [mount]);
    }
  });

  it('restores a backup: the replaced database kept beside, no stale WAL, the service starts on it', async () => {
    const backup = path.join(dir, 'backup.sqlite');
    await makeDatabase(backup, 'carla');
    const run = await runCli('restore', [backup], env);
    expect(run.stderr).to.equal('');
    expect(run.code).to.equal(0);
    // Before any read: a read-only reader of a WAL file leaves a -wal of its own.
    expect(fs.existsSync(`${live}-wal`)).to.equal(false);
    const kept = /the replaced database is (.+)\n$/.exec(run.stdout)?.[1];
    expect(kept, run.stdout).to.be.a('string');
    expect(path.dirname(kept!)).to.equal(dir);
    expect(userNames(kept!)).to.deep.equal(['anna']);
    expect(userNames(live)).to.deep.equal(['carla']);
    expect(fs.readdirSync(dir).filter((n) => n.includes('restoring'))).to.deep.equal([]);
    const server = await startService({ SQLITE_FILE: live }, path.join(dir, 'service.log'));
    try {
      expect((await fetch(`${server.url}/ready`)).status).to.equal(200);
    } finally {
      await server.stop();
    }
  });

  it('refuses to restore while a server holds the database, and says how to stop it', async () => {
    const backup = path.join(dir, 'backup.sqlite');
    await makeDatabase(backup, 'carla');
    const server = await startService({ SQLITE_FILE: live }, path.join(dir, 'service.log'));
    try {
      const before = fs.readdirSync(dir).sort();
      const run = await runCli('restore', [backup], env);
      expect(run.code).to.equal(1);
      expect(oneLine(run.stderr), run.stderr).to.equal(true);
      expect(run.stderr).to.match(/^restore refused: .*live\.sqlite is in use by a running server: stop it first \(SIGTERM/);
      expect(fs.readdirSync(dir).sort()).to.deep.equal(before);
      expect((await fetch(`${server.url}/ready`)).status).to.equal(200);
    } finally {
      await server.stop();
    }
    expect(userNames(live)).to.deep.equal(['anna']);
  });

  const refusedSources: Array<[string, (file: string) => Promise<void>, RegExp]> = [
    ['a file that is not a database', async (f) => fs.writeFileSync(f, 'id,name\n1,anna\n'), /: file is not a database$/],
    ['a database of another application', async (f) => { const c = new Database(f); c.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY)'); c.close(); }, /migrations: no knex_migrations table: not a database of this service$/],
    ['a database of another knex application', async (f) => { const c = new Database(f); c.exec("CREATE TABLE knex_migrations (id INTEGER PRIMARY KEY, name TEXT, batch INT, migration_time DATETIME); INSERT INTO knex_migrations (name) VALUES ('20200101_create_invoices')"); c.close(); }, /migrations: the first is 20200101_create_invoices: not a database of this service$/],
    ['a database from a newer migration level', async (f) => {
      await makeDatabase(f, 'carla');
      const c = new Database(f);
      c.prepare('INSERT INTO knex_migrations (name, batch, migration_time) VALUES (?, 9, 0)').run('999-from-the-future');
      c.close();
    }, /from a newer migration level than this build, which does not know 999-from-the-future$/],
    ['a database that fails the integrity check', async (f) => {
      await makeDatabase(f, 'carla');
      // Garbles the b-tree pages after the schema page: the header stays valid.
      const fd = fs.openSync(f, 'r+');
      fs.writeSync(fd, Buffer.alloc(8192, 0x5a), 0, 8192, 4096 * 3);
      fs.closeSync(fd);
    }, /: (integrity_check: |file is not a database|database disk image is malformed)/],
    ['a missing file', async () => {}, /: no such file$/],
  ];
  for (const [name, make, message] of refusedSources) {
    it(`refuses to restore ${name} with one line, exit 1, nothing changed`, async () => {
      const source = path.join(dir, 'source.sqlite');
      await make(source);
      const before = fs.readdirSync(dir).sort();
      const liveSum = sha(live);
      const run = await runCli('restore', [source], env);
      expect(run.code).to.equal(1);
      expect(oneLine(run.stderr), run.stderr).to.equal(true);
      expect(run.stderr.trim()).to.match(/^restore refused: /);
      expect(run.stderr.trim()).to.match(message);
      expect(fs.readdirSync(dir).sort()).to.deep.equal(before);
      expect(sha(live)).to.equal(liveSum);
    });
  }

  it('sends MySQL/MariaDB deployments to the engine\'s own tools, and answers a bad command line with its usage', async () => {
    const mysql = { DATABASE_URL: 'mysql://u@127.0.0.1:1/x' };
    const backup = await runCli('backup', [path.join(dir, 'x.sqlite')], mysql);
    expect([backup.code, backup.stderr.trim()]).to.deep.equal([2, 'DATABASE_URL is set: back up MySQL/MariaDB with the engine\'s own tools (mariadb-dump --single-transaction, README "For operators")']);
    const restore = await runCli('restore', [live], mysql);
    expect(restore.code).to.equal(2);
    expect(restore.stderr).to.match(/^restore refused: DATABASE_URL is set: restore MySQL\/MariaDB with the engine's own client/);
    for (const cli of ['backup', 'restore']) {
      const usage = await runCli(cli, [], env);
      expect(usage.code).to.equal(2);
      expect(usage.stderr).to.match(new RegExp(`^usage: npm run ${cli} -- FILE`));
    }
    expect(fs.readdirSync(dir)).to.deep.equal(['live.sqlite']);
  });
});
