// A disk that fills mid-load (design.md §8): `npm run load` says so on the line it was
// writing, exits 1, and the table is as it was. Each engine's database sits on a tmpfs
// mounted for this test (root only: elsewhere the test fails and says why), far too
// small for the file's rows, so no shared disk is ever filled. SQLite: the file on a tmpfs
// of 3 MiB. MariaDB: a private server (the shared one on 3306 is never touched) whose
// database directory is a tmpfs of 13 MiB, as an operator puts a database on a volume of its
// own; InnoDB then fails to grow the table's file with ENOSPC, a real full filesystem rather
// than a capped tablespace, and the server is ready in about two seconds.
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, disconnect } from '../../src/db/connect.js';
import type { Dialect } from '../../src/db/dialect.js';
import { migrate } from '../../src/db/migrate.js';
import { PrivateMariaDb } from '../reliability/support/private-mariadb.js';
import { forEachDialect } from '../support/dialects.js';
import { requireOfMachine } from '../support/machine.js';
import { runCli } from '../support/run-cli.js';

const rows = 100_000;
// MariaDB's schema (tables, triggers) takes part of its tmpfs: at 13 MiB both write paths load
// about 15,000 rows before it fills, the second into the pages the first one's rollback freed.
const mountMb: Record<Dialect, number> = { sqlite: 3, mysql: 13 };
/** Each of MariaDB's two write paths meets the full disk on its own. */
const vias: Record<Dialect, string[][]> = { sqlite: [[]], mysql: [['--mysql-via', 'insert'], ['--mysql-via', 'infile']] };

forEachDialect('operator loading: a full disk', (dialect) => {
  let dir: string;
  let mounted = false;
  let server: PrivateMariaDb | undefined;
  let env: Record<string, string>;
  let csv: string;

  before(async function () {
    requireOfMachine(process.getuid?.() === 0, 'mounting a tmpfs needs root; run the suite as root, as CI does');
    csv = path.join(os.tmpdir(), `impianti-full-${process.pid}.csv`);
    fs.writeFileSync(csv, contacts());
    if (dialect === 'sqlite') {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-load-full-'));
      mountTmpfs(dir, mountMb.sqlite);
      env = { SQLITE_FILE: path.join(dir, 'full.sqlite') };
    } else {
      server = await PrivateMariaDb.create(undefined, ['--character-set-server=utf8mb4', '--collation-server=utf8mb4_unicode_ci']);
      // A directory in the datadir is a database to the server: this one is the tmpfs.
      dir = path.join(server.dir, 'data', 'impianti_full');
      fs.mkdirSync(dir);
      mountTmpfs(dir, mountMb.mysql);
      spawnSync('chown', ['mysql:mysql', dir]);
      await server.start();
      env = { DATABASE_URL: `${server.url}/impianti_full` };
    }
    const db = connect({ databaseUrl: env['DATABASE_URL'], sqliteFile: env['SQLITE_FILE'] });
    try {
      await migrate(db);
      await db.knex('soggetto_recapito').insert({ id: 1, soggetto_id: 1, tipo_recapito_id: 1, recapito: 'kept' });
    } finally {
      await disconnect(db);
    }
  });
  after(async () => {
    await server?.stop();
    if (mounted) spawnSync('umount', [dir]);
    await server?.destroy();
    if (dialect === 'sqlite' && dir) fs.rmSync(dir, { recursive: true, force: true });
    if (csv) fs.rmSync(csv, { force: true });
  });

  for (const args of vias[dialect]) {
    it(`reports the full disk on a line past the first rows, exits 1 and leaves the table as it was${args.length ? ` (${args.join(' ')})` : ''}`, async () => {
      // No progress lines on a slow machine: stderr holds the refusal alone (progress has its own test).
      const r = await runCli('load', ['soggetto_recapito', csv, ...args, '--progress-every', '3600'], env);
      expect(r.code).to.equal(1);
      const m = /^impianti-full-\d+\.csv:(\d+): the database's disk is full; nothing was written\nnothing was loaded\n$/.exec(r.stderr);
      expect(m, r.stderr).to.not.equal(null);
      // Rows went in before the disk filled: the load itself filled it, not the schema.
      expect(Number(m![1])).to.be.within(1000, rows);
      const db = connect({ databaseUrl: env['DATABASE_URL'], sqliteFile: env['SQLITE_FILE'] });
      try {
        expect(await db.knex('soggetto_recapito').select('id', 'recapito')).to.deep.equal([{ id: 1, recapito: 'kept' }]);
      } finally {
        await disconnect(db);
      }
    });
  }

  function mountTmpfs(at: string, mb: number): void {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m`, 'tmpfs', at]);
    mounted = true;
  }
});

/** A CSV of contacts with ids 2 up to `rows`, each about 90 bytes. */
function contacts(): string {
  let text = 'id,soggetto_id,tipo_recapito_id,recapito,codice_esterno\n';
  for (let id = 2; id <= rows; id++) text += `${id},${id},1,contatto.numero.${id}@esempio-lungo.it,CRM-${String(id).padStart(8, '0')}\n`;
  return text;
}
