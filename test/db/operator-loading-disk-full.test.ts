// A disk that fills mid-load (design.md §8): `npm run load` says so on the line it was
// writing, exits 1, and the table is as it was. The SQLite file lives on a tmpfs of 3 MiB
// mounted for this test (root only: the test says why it is skipped otherwise), far too
// small for the file's 60,000 rows, so the shared disk is never filled.
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { dialects } from '../support/dialects.js';
import { runCli } from '../support/run-cli.js';

const describeSqlite = dialects.includes('sqlite') ? describe : describe.skip;

describeSqlite('operator loading: a full disk [sqlite]', () => {
  let dir: string;
  let mounted = false;
  before(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-load-full-'));
    if (process.getuid?.() !== 0) this.skip();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', dir]);
    mounted = true;
  });
  after(() => {
    if (mounted) spawnSync('umount', [dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports the full disk on a line, exits 1 and leaves the table as it was', async () => {
    const sqliteFile = path.join(dir, 'full.sqlite');
    const db = connect({ sqliteFile });
    await migrate(db);
    await db('soggetto_recapito').insert({ id: 1, soggetto_id: 1, tipo_recapito_id: 1, recapito: 'kept' });
    await db.destroy();
    const csv = path.join(os.tmpdir(), `impianti-full-${process.pid}.csv`);
    let text = 'id,soggetto_id,tipo_recapito_id,recapito,codice_esterno\n';
    for (let id = 2; id <= 60_000; id++) text += `${id},${id},1,contatto.numero.${id}@esempio-lungo.it,CRM-${String(id).padStart(8, '0')}\n`;
    fs.writeFileSync(csv, text);
    try {
      const r = await runCli('load', ['soggetto_recapito', csv], { SQLITE_FILE: sqliteFile });
      expect(r.code).to.equal(1);
      expect(r.stderr).to.match(/^impianti-full-\d+\.csv:\d+: the database's disk is full; nothing was written\nnothing was loaded\n$/);
    } finally {
      fs.rmSync(csv, { force: true });
    }
    const after = connect({ sqliteFile });
    try {
      expect(await after('soggetto_recapito').select('id', 'recapito')).to.deep.equal([{ id: 1, recapito: 'kept' }]);
    } finally {
      await after.destroy();
    }
  });
});
