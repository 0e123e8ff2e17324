// Operators load the contract's tables themselves (design.md §8). On MySQL the engine's own
// client inserts the contract's columns, and the queries then find the rows, folding and
// all. On the embedded SQLite file the sqlite3 shell cannot (the search indexes fold with a
// function only the service registers), so `npm run load` is the documented path: CSV or JSON
// lines, line numbers on every problem, nothing half-loaded. Bad input of every kind is in
// operator-loading-bad-input.test.ts, memory in ../reliability/loader-memory.test.ts.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Dialect } from '../../src/db/dialect.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const run = promisify(execFile);

forEachDialect('operator loading', (dialect: Dialect) => {
  let s: TestServer;
  let admin: string;
  let dir: string;
  before(async () => {
    s = await startServer({ dialect });
    admin = await s.tokenFor(['Admin']);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-load-'));
  });
  after(async () => {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The engine's own command-line client, as an operator runs it. */
  const engineSql = (sql: string) => {
    if (dialect === 'sqlite') return run('sqlite3', [s.sqliteFile!, sql]);
    const url = new URL(s.databaseUrl!);
    return run('mariadb', ['-h', url.hostname, '-P', url.port || '3306', '-u', decodeURIComponent(url.username), ...(url.password ? [`-p${decodeURIComponent(url.password)}`] : []), url.pathname.slice(1), '-e', sql]);
  };
  const load = (table: string, file: string) => run(process.execPath, [path.join(root, 'dist/src/cli/load.js'), table, file], {
    env: { PATH: process.env['PATH'] ?? '', ...(s.databaseUrl ? { DATABASE_URL: s.databaseUrl } : { SQLITE_FILE: s.sqliteFile! }) },
  }).then((r) => ({ code: 0, ...r }), (e: { code: number; stdout: string; stderr: string }) => e);
  const search = async (query: string) => (await s.request('GET', `/json/reply/SoggettoRecapitoQuery?${query}`, { token: admin })).body.results as Array<{ id: number }>;

  it('the engine\'s client inserts an impianto with the contract\'s columns only: the rest has defaults', async () => {
    await engineSql('INSERT INTO impianto (id) VALUES (9001)');
    const row = await s.knex('impianto').where({ id: 9001 }).first('nome');
    expect(row.nome).to.equal('');
  });

  if (dialect === 'mysql') {
    it('the mariadb client inserts query rows, and the searches find them folded', async () => {
      await engineSql("INSERT INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (9101, 77, 1, 'ufficio@città.it')");
      expect((await search('RecapitoContains=CITTA&Fields=Id')).map((r) => r.id)).to.deep.equal([9101]);
    });
  } else {
    it('the sqlite3 shell cannot insert into the query tables, which is why npm run load exists', async () => {
      const failed = await engineSql("INSERT INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (9101, 77, 1, 'x')").then(() => '', (e: { stderr: string }) => e.stderr);
      expect(failed).to.match(/no such function: fold|unknown function: fold/);
    });
  }

  it('npm run load takes CSV and JSON lines, and the searches find the rows folded', async () => {
    fs.writeFileSync(path.join(dir, 'recapiti.csv'), 'Id,SoggettoId,TipoRecapitoId,Recapito,CodiceEsterno\r\n9201,78,1,"ufficio@perugia-città.it",\r\n9202,78,2,"""quoted"", with comma",CRM-1\r\n');
    fs.writeFileSync(path.join(dir, 'recapiti.jsonl'), '{"id":9203,"soggetto_id":78,"tipo_recapito_id":3,"recapito":"+39 075 1234567"}\n');
    const csv = await load('soggetto_recapito', path.join(dir, 'recapiti.csv'));
    const jsonl = await load('soggetto_recapito', path.join(dir, 'recapiti.jsonl'));
    expect([csv.code, jsonl.code]).to.deep.equal([0, 0]);
    expect(csv.stdout).to.match(/^2 rows loaded into soggetto_recapito in \d+\.\d s: \d+ rows\/s, peak memory \d+ MB$/m);
    expect((await search('SoggettoId=78&Fields=Id')).map((r) => r.id)).to.deep.equal([9201, 9202, 9203]);
    expect((await search('RecapitoContains=CITTA&SoggettoId=78&Fields=Id')).map((r) => r.id)).to.deep.equal([9201]);
    const quoted = await s.knex('soggetto_recapito').where({ id: 9202 }).first('recapito', 'codice_esterno');
    expect(quoted).to.deep.equal({ recapito: '"quoted", with comma', codice_esterno: 'CRM-1' });
  });

  it('reports every bad row with its line number and loads nothing', async () => {
    fs.writeFileSync(path.join(dir, 'bad.csv'), 'id,soggetto_id,tipo_recapito_id,recapito\n9301,79,1,a\n9302,x,1,b\n9303,79,,c\n9304,79,1\n');
    const r = await load('soggetto_recapito', path.join(dir, 'bad.csv'));
    expect(r.code).to.equal(1);
    expect(r.stderr.trim().split('\n')).to.deep.equal([
      'bad.csv:3: soggetto_id: "x" is not an int32',
      'bad.csv:4: tipo_recapito_id: required',
      'bad.csv:5: 3 fields, the header has 4',
      'nothing was loaded',
    ]);
    expect(await s.knex('soggetto_recapito').where('id', '>=', 9301).count({ n: '*' }).first()).to.satisfy((x: { n: number | string }) => Number(x.n) === 0);
  });

  it('a row the database refuses (a duplicate id) rolls the whole file back, naming its line', async () => {
    fs.writeFileSync(path.join(dir, 'dup.jsonl'), '{"id":9401,"soggetto_id":80,"tipo_recapito_id":1}\n{"id":9402,"soggetto_id":80,"tipo_recapito_id":1}\n{"id":9401,"soggetto_id":80,"tipo_recapito_id":1}\n');
    const r = await load('soggetto_recapito', path.join(dir, 'dup.jsonl'));
    expect(r.code).to.equal(1);
    expect(r.stderr).to.equal('dup.jsonl:3: id 9401 appears earlier in this file\nnothing was loaded\n');
    expect(await s.knex('soggetto_recapito').where({ soggetto_id: 80 }).count({ n: '*' }).first()).to.satisfy((x: { n: number | string }) => Number(x.n) === 0);
  });

  it('refuses an unknown table and a file that is neither CSV nor JSON lines', async () => {
    fs.writeFileSync(path.join(dir, 'x.csv'), 'id\n1\n');
    const table = await load('app_user', path.join(dir, 'x.csv'));
    expect([table.code, table.stderr]).to.satisfy(([code, err]: [number, string]) => code === 1 && /^x\.csv:0: unknown table app_user/.test(err));
    // A readable file of valid rows, refused for its name alone: nothing is read or written.
    fs.writeFileSync(path.join(dir, 'x.txt'), 'id\n9501\n');
    const named = await load('impianto', path.join(dir, 'x.txt'));
    expect(named.code, named.stderr).to.equal(2);
    expect(named.stderr).to.match(/x\.txt: the name must end in \.csv or \.jsonl\n/);
    expect(await s.knex('impianto').where({ id: 9501 }).first('id')).to.equal(undefined);
  });
});
