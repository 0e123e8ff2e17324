// The swap of the embedded file (design.md §8) when the replacement cannot be made: the
// problem is answered, the file keeps every row and its WAL mode, and no partial copy is
// left; through a symbolic link the file it points to is replaced; asked to, the replaced
// content is kept beside the new file.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { connect, disconnect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { openSqliteFile } from '../../src/db/sqlite-file/sqlite-file.js';
import { swapSqliteFile } from '../../src/db/sqlite-file/sqlite-file-swap.js';

describe('sqlite file swap', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-swap-'));
    file = path.join(dir, 'impianti.sqlite');
    const db = connect({ sqliteFile: file });
    await migrate(db);
    await db.knex('soggetto_recapito').insert([{ soggetto_id: 1, tipo_recapito_id: 1, recapito: 'Città@pec.it' }, { soggetto_id: 2, tipo_recapito_id: 1, recapito: 'b' }]);
    await disconnect(db);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const state = (f: string) => {
    const conn = new Database(f, { readonly: true });
    try {
      return { mode: conn.pragma('journal_mode', { simple: true }), rows: conn.prepare('SELECT id, recapito FROM soggetto_recapito ORDER BY id').raw().all() };
    } finally {
      conn.close();
    }
  };
  const untouched = { mode: 'wal', rows: [[1, 'Città@pec.it'], [2, 'b']] };

  const failures: Array<[string, (source: Database.Database, target: string) => string | undefined, string]> = [
    ['a replacement found wanting', (source, target) => { source.prepare('VACUUM INTO ?').run(target); return 'the copy is no good'; }, 'the copy is no good; nothing was changed'],
    ['a replacement that cannot be written', (source) => { source.prepare('VACUUM INTO ?').run(path.join(dir, 'no-such-dir', 'x.sqlite')); return undefined; }, 'unable to open database: '],
  ];
  for (const [name, build, message] of failures) {
    it(`${name}: the problem answered, the file as it was, no copy left`, () => {
      const outcome = swapSqliteFile(file, build);
      expect(outcome.ok).to.equal(false);
      expect(outcome.ok ? '' : outcome.error).to.have.string(message);
      expect(state(file)).to.deep.equal(untouched);
      expect(fs.readdirSync(dir).filter((f) => f.includes('.swap-'))).to.deep.equal([]);
    });
  }

  it('gives the replacement the file\'s mode and, when run by root, its owner', () => {
    fs.chmodSync(file, 0o640);
    const root = process.getuid?.() === 0;
    if (root) fs.chownSync(file, 4321, 4322);
    const outcome = swapSqliteFile(file, (source, target) => { source.prepare('VACUUM INTO ?').run(target); return undefined; });
    expect(outcome).to.include({ ok: true });
    const st = fs.statSync(file);
    expect(st.mode & 0o7777).to.equal(0o640);
    if (root) expect([st.uid, st.gid]).to.deep.equal([4321, 4322]);
    expect(state(file)).to.deep.equal(untouched);
  });

  it('through a symbolic link, replaces the file it points to and keeps the link', () => {
    const link = path.join(dir, 'link.sqlite');
    fs.symlinkSync(file, link);
    const outcome = swapSqliteFile(link, (source, target) => {
      source.prepare('VACUUM INTO ?').run(target);
      const copy = openSqliteFile(target, { readonly: false });
      if (!copy.ok) return copy.error;
      copy.conn.prepare('DELETE FROM soggetto_recapito WHERE id = 2').run();
      copy.conn.close();
      return undefined;
    });
    expect(outcome).to.include({ ok: true });
    expect(fs.lstatSync(link).isSymbolicLink()).to.equal(true);
    expect(state(link)).to.deep.equal({ mode: 'wal', rows: [[1, 'Città@pec.it']] });
  });

  it('keeps the replaced content beside the new file when asked to', () => {
    const outcome = swapSqliteFile(file, (source, target) => {
      source.prepare('VACUUM INTO ?').run(target);
      const copy = openSqliteFile(target, { readonly: false });
      if (!copy.ok) return copy.error;
      copy.conn.prepare('DELETE FROM soggetto_recapito').run();
      copy.conn.close();
      return undefined;
    }, { keepReplacedAt: new Date('2026-11-27T08:00:00Z') });
    expect(outcome).to.include({ ok: true, kept: `${fs.realpathSync(file)}.replaced-2026-11-27T08-00-00.000Z` });
    expect(state(file)).to.deep.equal({ mode: 'wal', rows: [] });
    expect(state(outcome.ok ? outcome.kept! : '').rows).to.deep.equal(untouched.rows);
  });
});
