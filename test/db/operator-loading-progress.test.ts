// What `npm run load` says while it runs (design.md §8): plain lines of progress when its
// stderr is a pipe, a live cli-progress line when it is a terminal (util-linux `script`
// gives it one), and at the end the rows, seconds, rows per second and peak memory; on
// SQLite, into an empty table, that its indexes were built after the rows.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { runCli } from '../support/run-cli.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('../../src/cli/load.js', import.meta.url));
const rows = 30_000;
const plainLine = /^loading soggetto_recapito: \d+ rows read, \d+ rows\/s, \d+% of the file, (\d+ min )?\d+ s left$/;
const summary = /^(\d+) rows loaded into soggetto_recapito in [\d.]+ s: \d+ rows\/s, peak memory \d+ MB$/m;

forEachDialect('operator loading: progress', (dialect) => {
  let t: TestDb;
  let dir: string;
  let file: string;
  before(async () => {
    t = await createTestDb(dialect);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-load-progress-'));
    file = path.join(dir, 'recapiti.csv');
  });
  after(async () => {
    await t?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const env = (): Record<string, string> => (t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { SQLITE_FILE: t.sqliteFile! });
  const write = (from: number) => {
    let text = 'id,soggetto_id,tipo_recapito_id,recapito\n';
    for (let id = from; id < from + rows; id++) text += `${id},${id},1,contatto${id}@esempio.it\n`;
    fs.writeFileSync(file, text);
  };

  it('without a terminal: plain lines of progress on stderr, the summary on stdout', async () => {
    write(1);
    const r = await runCli('load', ['soggetto_recapito', file, '--progress-every', '0.001'], env());
    expect(r.code).to.equal(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines.length, r.stderr).to.be.greaterThan(0);
    for (const line of lines) expect(line).to.match(plainLine);
    expect(summary.exec(r.stdout)?.[1]).to.equal(String(rows));
    const deferred = /^soggetto_recapito was empty: its 4 indexes were built after the rows, in the same transaction$/m.test(r.stdout);
    expect(deferred).to.equal(dialect === 'sqlite');
  });

  it('on a terminal: a live line with percent, rows, rows per second and time left', async () => {
    write(rows + 1);
    const command = [process.execPath, cli, 'soggetto_recapito', file].map((a) => `'${a}'`).join(' ');
    const r = await run('script', ['-qfec', command, '/dev/null'], { env: { PATH: process.env['PATH'] ?? '', TERM: 'xterm', ...env() } });
    const screen = r.stdout.replace(/\r/g, '');
    expect(screen).to.match(/\x1b\[1Gloading soggetto_recapito \S+ \d+% of the file \| \d+ rows \| \d+ rows\/s \| .+ left\x1b\[0K/);
    // The summary follows the bar's last escape codes on its line.
    expect(new RegExp(summary.source.slice(1), 'm').exec(screen)?.[1]).to.equal(String(rows));
    expect(Number((await t.knex('soggetto_recapito').count({ n: '*' }).first())?.['n'])).to.equal(2 * rows);
  });
});
