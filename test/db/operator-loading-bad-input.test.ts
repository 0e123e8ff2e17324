// `npm run load` on bad input (design.md §8): every kind of broken file gets FILE:LINE: and
// a message that says what is wrong, exit code 1, and the table as it was. The cases are
// one table: the file, and the lines the command must print on stderr. Cases of MariaDB's
// second write path (`--mysql-via infile`, LOAD DATA) are declared on MySQL only: SQLite
// ignores the flag.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { runCli } from '../support/run-cli.js';

const header = 'id,soggetto_id,tipo_recapito_id,recapito\n';
const row = (id: number) => `${id},7,1,r${id}@example.it\n`;
const long = 'x'.repeat(1024 * 1024 + 10);
const columns = 'the columns are id, soggetto_id, tipo_recapito_id, recapito, codice_esterno';

const cases: Array<[string, { file: string; content: string | Buffer; args?: string[]; want: string[] }]> = [
  ['a CSV cut inside a quoted field', { file: 'cut.csv', content: `${header}${row(1)}2,7,1,"ufficio@`, want: ['cut.csv:3: the file ends inside a quoted field (truncated?)'] }],
  ['a CSV cut inside a quoted field that spans lines', { file: 'cut.csv', content: `${header}${row(1)}2,7,1,"ufficio\nPerugia`, want: ['cut.csv:4: the file ends inside a quoted field (truncated?)'] }],
  ['a CSV cut mid-row', { file: 'cut.csv', content: `${header}${row(1)}2,7`, want: ['cut.csv:3: 2 fields, the header has 4; the file ends here without a line break (truncated?)'] }],
  ['a JSON lines file cut mid-object', { file: 'cut.jsonl', content: '{"id":1,"soggetto_id":7,"tipo_recapito_id":1}\n{"id":2,"sogg', want: ['cut.jsonl:2: not valid JSON, and the file ends here without a line break (truncated?)'] }],
  ['a line longer than the bound', { file: 'long.csv', content: `${header}${row(1)}2,7,1,${long}\n${row(3)}`, want: ['long.csv:3: a line longer than 1048576 bytes, the bound on one row'] }],
  ['a JSON line longer than the bound', { file: 'long.jsonl', content: `{"id":1,"recapito":"${long}"}\n`, want: ['long.jsonl:1: a line longer than 1048576 bytes, the bound on one row'] }],
  ['a quoted field that runs on past the bound', { file: 'open.csv', content: `${header}1,7,1,"${'a\n'.repeat(600 * 1024)}`, want: ['open.csv:524289: a row that runs on past the bound on one row up to this line (an unclosed quote?)'] }],
  ['a header naming an unknown column', { file: 'head.csv', content: `id,soggetto_id,tipo_recapito_id,colore\n${row(1)}`, want: [`head.csv:1: header: colore: not a column of soggetto_recapito; ${columns}`] }],
  ['a header without required columns', { file: 'head.csv', content: 'id,recapito\n1,a\n', want: ['head.csv:1: header: soggetto_id: required, and the header has no such column', 'head.csv:1: header: tipo_recapito_id: required, and the header has no such column'] }],
  ['a header naming a column twice', { file: 'head.csv', content: `id,SoggettoId,soggetto_id,tipo_recapito_id\n1,7,7,1\n`, want: ['head.csv:1: header: soggetto_id: a second column for soggetto_id'] }],
  ['a Latin-1 file', { file: 'latin1.csv', content: Buffer.concat([Buffer.from(`${header}${row(1)}2,7,1,citt`), Buffer.from([0xe0]), Buffer.from('\n')]), want: ['latin1.csv:3: not UTF-8: this line holds bytes that are no UTF-8 character (a file saved as Latin-1 or Windows-1252?); save it as UTF-8'] }],
  ['a UTF-16 file', { file: 'utf16.csv', content: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(header, 'utf16le')]), want: ['utf16.csv:1: not UTF-8: the file starts with a UTF-16 byte order mark; save it as UTF-8'] }],
  ['a Latin-1 JSON line', { file: 'latin1.jsonl', content: Buffer.concat([Buffer.from('{"id":1,"soggetto_id":7,"tipo_recapito_id":1}\n{"id":2,"recapito":"citt'), Buffer.from([0xe0]), Buffer.from('"}\n')]), want: ['latin1.jsonl:2: not UTF-8: this line holds bytes that are no UTF-8 character (a file saved as Latin-1 or Windows-1252?); save it as UTF-8'] }],
  ['a duplicate id in the file', { file: 'dup.csv', content: `${header}${row(11)}${row(12)}${row(11)}`, want: ['dup.csv:4: id 11 appears earlier in this file'] }],
  ['an id already in the table', { file: 'taken.csv', content: `${header}${row(21)}${row(500)}`, want: ['taken.csv:3: id 500 is already in the table'] }],
  ['a duplicate id in the file, by LOAD DATA', { file: 'dup.csv', content: `${header}${row(11)}${row(12)}${row(11)}`, args: ['--mysql-via', 'infile'], want: ['dup.csv:4: id 11 appears earlier in this file'] }],
  ['an id already in the table, by LOAD DATA', { file: 'taken.csv', content: `${header}${row(21)}${row(500)}`, args: ['--mysql-via', 'infile'], want: ['taken.csv:3: id 500 is already in the table'] }],
  ['not a JSON object', { file: 'array.jsonl', content: '[1,2]\n{"id":1,"soggetto_id":7,"tipo_recapito_id":1,"colore":"rosso"}\n', want: ['array.jsonl:1: not a JSON object', 'array.jsonl:2: colore: not a column of soggetto_recapito'] }],
  ['a quote inside an unquoted field', { file: 'quote.csv', content: `${header}${row(1)}2,7,1,ab"c\n`, want: ['quote.csv:3: a quote inside an unquoted field; RFC 4180 quotes the whole field and doubles inner quotes'] }],
  ['problems past --max-errors', { file: 'many.csv', content: `${header}x,7,1,a\ny,7,1,b\nz,w,1,c\n${row(1)}`, args: ['--max-errors', '2'], want: ['many.csv:2: id: "x" is not an int32', 'many.csv:3: id: "y" is not an int32', 'many.csv:4: stopped reading after 2 problems (--max-errors); 2 more found on this line not shown, the lines after it not checked'] }],
  ['a problem on the line after a field that spans lines', { file: 'span.csv', content: `${header}1,7,1,"two\r\nlines"\n2,7,x,b\n`, want: ['span.csv:4: tipo_recapito_id: "x" is not an int32'] }],
];

forEachDialect('operator loading: bad input', (dialect) => {
  let t: TestDb;
  let dir: string;
  before(async () => {
    t = await createTestDb(dialect);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-load-bad-'));
    await t.knex('soggetto_recapito').insert({ id: 500, soggetto_id: 1, tipo_recapito_id: 1, recapito: 'kept' });
  });
  after(async () => {
    await t?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const env = (): Record<string, string> => (t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { SQLITE_FILE: t.sqliteFile! });
  const rows = async () => (await t.knex('soggetto_recapito').select('id').orderBy('id')).map((r: { id: number }) => r.id);

  for (const [name, { file, content, args = [], want }] of cases) {
    if (dialect !== 'mysql' && args.includes('--mysql-via')) continue;
    it(`${name}: ${want.length} line(s) on stderr, exit 1, nothing written`, async () => {
      fs.writeFileSync(path.join(dir, file), content);
      const r = await runCli('load', ['soggetto_recapito', path.join(dir, file), ...args], env());
      expect({ code: r.code, stderr: r.stderr.trim().split('\n'), stdout: r.stdout }).to.deep.equal({ code: 1, stderr: [...want, 'nothing was loaded'], stdout: '' });
      expect(await rows()).to.deep.equal([500]);
    });
  }

  it('a UTF-8 byte order mark and CRLF line ends are read as any other file', async () => {
    fs.writeFileSync(path.join(dir, 'bom.csv'), `\uFEFF${header}${row(31)}${row(32)}`.replace(/\n/g, '\r\n'));
    const r = await runCli('load', ['soggetto_recapito', path.join(dir, 'bom.csv')], env());
    expect([r.code, r.stderr]).to.deep.equal([0, '']);
    expect(await rows()).to.deep.equal([31, 32, 500]);
    expect(await t.knex('soggetto_recapito').where({ id: 32 }).first('recapito')).to.deep.equal({ recapito: 'r32@example.it' });
    await t.knex('soggetto_recapito').whereIn('id', [31, 32]).delete();
  });

  for (const via of dialect === 'mysql' ? ['insert', 'infile'] : ['']) {
    const viaArgs = via ? ['--mysql-via', via] : [];
    it(`${via ? `--mysql-via ${via}` : 'the SQLite writer'}: tabs, backslashes, line breaks, quotes and nulls arrive as written`, async () => {
      const values = ['tab\there', 'back\\slash \\N', 'two\r\nlines', '"quoted"', 'città 😀'];
      const lines = values.map((v, i) => `${51 + i},7,1,"${v.replace(/"/g, '""')}",${i === 0 ? '' : `CRM-${i}`}`);
      fs.writeFileSync(path.join(dir, 'special.csv'), `id,soggetto_id,tipo_recapito_id,recapito,codice_esterno\n${lines.join('\n')}\n`);
      fs.writeFileSync(path.join(dir, 'special.jsonl'), '{"id":60,"soggetto_id":7,"tipo_recapito_id":1,"recapito":null}\n');
      for (const file of ['special.csv', 'special.jsonl']) {
        const r = await runCli('load', ['soggetto_recapito', path.join(dir, file), ...viaArgs], env());
        expect([r.code, r.stderr]).to.deep.equal([0, '']);
      }
      const got = await t.knex('soggetto_recapito').where('id', '>=', 51).andWhere('id', '<=', 60).orderBy('id').select('recapito', 'codice_esterno');
      expect(got).to.deep.equal([...values.map((recapito, i) => ({ recapito, codice_esterno: i === 0 ? '' : `CRM-${i}` })), { recapito: null, codice_esterno: null }]);
      await t.knex('soggetto_recapito').where('id', '>=', 51).andWhere('id', '<=', 60).delete();
    });
  }

  it('refuses bad options with the usage and exit code 2', async () => {
    fs.writeFileSync(path.join(dir, 'ok.csv'), `${header}${row(41)}`);
    for (const args of [['--max-errors', '0'], ['--max-errors', 'x'], ['--mysql-via', 'ftp'], ['--colour']]) {
      const r = await runCli('load', ['soggetto_recapito', path.join(dir, 'ok.csv'), ...args], env());
      expect([r.code, r.stderr]).to.satisfy(([code, err]: [number, string]) => code === 2 && err.includes('usage: npm run load -- TABLE FILE'), args.join(' '));
    }
    expect(await rows()).to.deep.equal([500]);
  });
});
