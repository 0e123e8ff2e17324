// `npm run db -- check | compact | sql` on an embedded file of 100,000 refresh tokens
// (design.md §8), run as an operator runs them: the compiled CLI in a child process.
// Compaction after purging half shrinks the file by more than a third and keeps every
// remaining row; it is refused while a server holds the file; check names a corrupted page;
// the prompt answers with fold() and writes only when asked to.
import { expect } from 'chai';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { connect } from '../../src/db/connect.js';
import { migrationNames } from '../../src/db/migrate.js';
import { openSqliteFile } from '../../src/db/sqlite-file/sqlite-file.js';
import { runCli } from '../support/run-cli.js';
import { startServer } from '../support/server.js';
import { accentedRows, buildTokenFile, copyOf, purgeExpired, tableDigests, tokenCount } from '../support/token-file.js';

const db = (file: string, args: string[], stdin?: string) => runCli('db', args, { SQLITE_FILE: file }, stdin);
const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const digests = (file: string) => {
  const opened = openSqliteFile(file, { readonly: true });
  if (!opened.ok) throw new Error(opened.error);
  try { return tableDigests(opened.conn); } finally { opened.conn.close(); }
};

describe('the embedded file\'s tools (npm run db)', function () {
  this.timeout(120_000);
  let source: { file: string; remove(): void };
  let dir: string;
  before(async () => { source = await buildTokenFile(); });
  after(() => source.remove());
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-dbtools-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('compact', () => {
    it(`after a purge of half of ${tokenCount.toLocaleString('en')} tokens shrinks the file by more than a third and keeps every remaining row`, async () => {
      const file = copyOf(source.file, dir);
      const sizeBefore = fs.statSync(file).size;
      const knex = connect({ sqliteFile: file }).knex;
      expect(Number((await knex('refresh_token').count({ n: '*' }))[0]!.n)).to.equal(tokenCount);
      await purgeExpired(knex);
      expect(Number((await knex('refresh_token').count({ n: '*' }))[0]!.n)).to.equal(tokenCount / 2);
      await knex.raw('PRAGMA wal_checkpoint(TRUNCATE)');
      await knex.destroy();
      const sizeAfterPurge = fs.statSync(file).size;
      expect(sizeAfterPurge, 'a purge alone returns no space').to.equal(sizeBefore);
      const kept = digests(file);

      const started = performance.now();
      const run = await db(file, ['compact']);
      const ms = Math.round(performance.now() - started);
      expect(run.stderr).to.equal('');
      expect(run.code).to.equal(0);
      expect(run.stdout).to.match(new RegExp(`^compacted ${file}: \\d+\\.\\d MB -> \\d+\\.\\d MB in \\d+\\.\\d s\\n$`));
      const sizeAfter = fs.statSync(file).size;
      expect(sizeAfter).to.be.at.most(sizeBefore * 2 / 3);
      expect(digests(file), 'every remaining row of every table').to.deep.equal(kept);
      expect(fs.readdirSync(dir).filter((f) => !/^copy\.sqlite(-wal|-shm)?$/.test(f)), 'no copy left behind').to.deep.equal([]);
      expect((await db(file, ['check'])).stdout).to.equal('ok\n');
      fs.mkdirSync('test-output', { recursive: true });
      fs.writeFileSync('test-output/sqlite-compact.json', `${JSON.stringify({ tokens: tokenCount, sizeBefore, sizeAfterPurge, sizeAfter, compactMs: ms }, null, 2)}\n`);
    });

    it('is refused while a server holds the file, and changes nothing', async () => {
      const s = await startServer({ dialect: 'sqlite' });
      try {
        expect((await s.request('GET', '/ready')).status).to.equal(200);
        const file = s.sqliteFile!;
        const before = digests(file);
        const run = await db(file, ['compact']);
        expect(run.code).to.equal(1);
        expect(run.stderr).to.equal(`${file} is in use by a running server: stop it first (SIGTERM, e.g. systemctl stop, or Ctrl-C on make run), then run this again; nothing was changed\n`);
        expect(digests(file)).to.deep.equal(before);
        expect(fs.readdirSync(path.dirname(file)).filter((f) => f.includes('.swap-'))).to.deep.equal([]);
        expect((await s.request('GET', '/ready')).status, 'the server goes on').to.equal(200);
      } finally {
        await s.close();
      }
    });

    it('leaves a process that opened the old file meanwhile failing loudly, never reading or writing a file no longer there', async () => {
      const file = copyOf(source.file, dir);
      const opened = new Database(file);
      try {
        expect((await db(file, ['compact'])).code).to.equal(0);
        expect(() => opened.prepare('SELECT count(*) FROM refresh_token').get()).to.throw(/not a database/);
      } finally {
        opened.close();
      }
    });

    it('refuses a file that does not exist, and creates none, and a file that is no database, and leaves it be', async () => {
      const run = await db(path.join(dir, 'missing.sqlite'), ['compact']);
      expect([run.code, run.stderr]).to.deep.equal([1, `${path.join(dir, 'missing.sqlite')}: no such file\n`]);
      expect(fs.readdirSync(dir)).to.deep.equal([]);
      const text = path.join(dir, 'notes.sqlite');
      fs.writeFileSync(text, 'only some text that is long enough to hold a header'.repeat(100));
      const before = sha(text);
      expect(await db(text, ['compact'])).to.deep.equal({ code: 1, stdout: '', stderr: `${text}: file is not a database\n` });
      expect(sha(text)).to.equal(before);
      expect(fs.readdirSync(dir)).to.deep.equal(['notes.sqlite']);
    });
  });

  describe('check', () => {
    it('prints ok for a healthy file, which stays as it was', async () => {
      const file = copyOf(source.file, dir);
      const before = sha(file);
      expect(await db(file, ['check'])).to.deep.equal({ code: 0, stdout: 'ok\n', stderr: '' });
      expect(sha(file)).to.equal(before);
    });

    it('names the damage on a file with a corrupted page', async () => {
      const file = copyOf(source.file, dir);
      const conn = new Database(file, { readonly: true });
      const pageSize = conn.pragma('page_size', { simple: true }) as number;
      const page = conn.prepare("SELECT pageno FROM dbstat WHERE name = 'ix_refresh_token_session_id' AND pagetype = 'leaf' LIMIT 1 OFFSET 10").pluck().get() as number;
      conn.close();
      const fd = fs.openSync(file, 'r+');
      fs.writeSync(fd, Buffer.alloc(16, 0xff), 0, 16, (page - 1) * pageSize);
      fs.closeSync(fd);
      const run = await db(file, ['check']);
      expect(run.code).to.equal(1);
      expect(run.stdout).to.match(new RegExp(`^integrity_check: Tree \\d+ \\(index ix_refresh_token_session_id\\) page ${page}: `, 'm'));
      expect(run.stdout).not.to.include('ok\n');
    });

    it('names pending and unknown migrations', async () => {
      const file = copyOf(source.file, dir);
      const conn = new Database(file);
      conn.prepare('DELETE FROM knex_migrations WHERE name = ?').run(migrationNames.at(-1));
      conn.prepare("INSERT INTO knex_migrations (name, batch, migration_time) VALUES ('999-later', 9, 0)").run();
      conn.close();
      const run = await db(file, ['check']);
      expect(run.code).to.equal(1);
      expect(run.stdout).to.equal([
        'migrations: from a newer migration level than this build, which does not know 999-later',
        `migrations: pending (the service applies them at start-up): ${migrationNames.at(-1)}`,
      ].map((l) => `${l}\n`).join(''));
    });

    it('says so for a file that is no database, or none at all', async () => {
      const text = path.join(dir, 'notes.sqlite');
      fs.writeFileSync(text, 'not a database, only some text that is long enough to hold a header'.repeat(100));
      expect(await db(text, ['check'])).to.deep.equal({ code: 1, stdout: '', stderr: `${text}: file is not a database\n` });
      const missing = path.join(dir, 'missing.sqlite');
      expect(await db(missing, ['check'])).to.deep.equal({ code: 1, stdout: '', stderr: `${missing}: no such file\n` });
      expect(fs.readdirSync(dir)).to.deep.equal(['notes.sqlite']);
    });
  });

  describe('sql', () => {
    const folded = `SELECT count(*) AS n FROM soggetto_recapito WHERE fold(recapito) LIKE 'citta%@pec.it';\n`;

    it('answers a query that uses fold()', async () => {
      const file = copyOf(source.file, dir);
      expect(await db(file, ['sql'], folded)).to.deep.equal({ code: 0, stdout: `n\n${accentedRows}\n`, stderr: '' });
    });

    it('is read-only without --write: a write is refused, exit 1, the file unchanged', async () => {
      const file = copyOf(source.file, dir);
      const before = sha(file);
      const insert = "INSERT INTO soggetto_recapito (soggetto_id, tipo_recapito_id, recapito) VALUES (1, 1, 'CITTÀ-nuova@pec.it');\n";
      const run = await db(file, ['sql'], insert + folded);
      expect(run).to.deep.equal({
        code: 1,
        stdout: `n\n${accentedRows}\n`,
        stderr: 'error: attempt to write a readonly database (the prompt is read-only: start it with --write to change the file)\n',
      });
      expect(sha(file)).to.equal(before);
      expect(await db(file, ['sql', '--write'], insert + folded)).to.deep.equal({ code: 0, stdout: `n\n${accentedRows + 1}\n`, stderr: '' });
    });

    it('reports a bad statement on one line and goes on with the next; statements may span lines and share them', async () => {
      const file = copyOf(source.file, dir);
      const run = await db(file, ['sql'], "SELEC 1;\nSELECT 'a;b' AS x,\n  2 AS y; SELECT fold('Àbc') AS f -- no semicolon: the end of input ends it\n");
      expect(run).to.deep.equal({ code: 1, stdout: 'x|y\na;b|2\nf\nabc\n', stderr: 'error: near "SELEC": syntax error\n' });
    });
  });

  describe('bad input', () => {
    const cases: Array<[string, string[], Record<string, string>, string]> = [
      ['no command', [], {}, 'missing command'],
      ['an unknown command', ['vacuum'], {}, 'unknown command vacuum'],
      ['an argument to check', ['check', 'now'], {}, 'check takes no arguments, got now'],
      ['an unknown option of sql', ['sql', '--writ'], {}, 'unknown argument --writ'],
    ];
    for (const [name, args, env, message] of cases) {
      it(`${name}: one line and the usage, exit 2`, async () => {
        const run = await runCli('db', args, { SQLITE_FILE: path.join(dir, 'x.sqlite'), ...env });
        expect(run.code).to.equal(2);
        expect(run.stderr).to.equal(`${message}\nusage: npm run db -- check | compact | sql [--write]   (on the SQLite file SQLITE_FILE)\n`);
        expect(fs.readdirSync(dir)).to.deep.equal([]);
      });
    }

    it('a MySQL/MariaDB DATABASE_URL: the server\'s own tools are named, exit 2', async () => {
      const run = await runCli('db', ['check'], { DATABASE_URL: 'mysql://u@127.0.0.1:1/none' });
      expect(run.code).to.equal(2);
      expect(run.stderr).to.match(/^these commands work on the embedded SQLite file, .*mariadb-check.*\n$/);
    });

    it('a bad configuration value: the variable named, exit 2', async () => {
      const run = await runCli('db', ['check'], { SQLITE_FILE: path.join(dir, 'x.sqlite'), LOG_LEVEL: 'loud' });
      expect([run.code, run.stderr]).to.deep.equal([2, 'configuration error: LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"\n']);
    });
  });
});
