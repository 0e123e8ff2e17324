// The bulk seed: rows land after the existing ids, are exactly the generated ones (so runs
// are reproducible), fit the columns, and are found by the API's own filters; the CLI's
// argument parser rejects bad input with a message and a non-zero exit.
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { parseSeedArgs, runSeedCli } from '../../src/cli/seed.js';
import { fold } from '../../src/db/fold.js';
import { seedDemo } from '../../src/cli/demo-data.js';
import { generateRows, seedBulk, startIds, type BulkTable, type SeedProgress } from '../../src/db/seed-bulk.js';
import type { QueryDtoSpec } from '../../src/query/catalog-types.js';
import { runQuery } from '../../src/query/run-query.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { runCli } from '../support/run-cli.js';
import { cg, sr, testContext } from '../support/query-catalog.js';

const rows = 5000;
const seed = 42;

forEachDialect('bulk seed', (dialect) => {
  let t: TestDb;
  const expected: Partial<Record<BulkTable, Record<string, unknown>[]>> = {};
  const progress: SeedProgress[] = [];
  let seeded: Awaited<ReturnType<typeof seedBulk>>;

  before(async () => {
    t = await createTestDb(dialect);
    // Demo rows first, so the seed has to start after ids (and soggetto ids) already taken.
    await seedDemo(t.db);
    for (const table of ['caratteristica_gruppo', 'soggetto_recapito'] as const) {
      expected[table] = generateRows(table, seed, await startIds(t.knex, table), rows);
    }
    seeded = await seedBulk(t.db, { table: 'all', rows, seed, batchRows: 700, batchesPerTransaction: 3, onProgress: (p) => progress.push(p) });
  });
  after(() => t?.drop());

  const total = async (dto: QueryDtoSpec, filters: Record<string, unknown>) => {
    const out = await runQuery(t.db, dto, { ...filters, take: 0, include: 'Total' }, testContext());
    if (!out.ok) throw out.error;
    return out.value.response.total;
  };

  it('writes ids right after the existing maximum, and counts every batch', async () => {
    expect(seeded.map((s) => [s.table, s.rows, s.firstId, s.lastId])).to.deep.equal([
      ['caratteristica_gruppo', rows, 43, 42 + rows],
      ['soggetto_recapito', rows, 61, 60 + rows],
    ]);
    for (const s of seeded) {
      const r = await t.knex(s.table).select(t.knex.raw('COUNT(*) AS n, MIN(id) AS lo, MAX(id) AS hi')).where('id', '>=', s.firstId).first();
      expect([Number(r.n), Number(r.lo), Number(r.hi)]).to.deep.equal([rows, s.firstId, s.lastId]);
      const mine = progress.filter((p) => p.table === s.table).map((p) => p.done);
      expect(mine.at(-1)).to.equal(rows);
      expect(mine).to.deep.equal([...mine].sort((a, b) => a - b));
    }
    const soggetti = await t.knex('soggetto_recapito').where('id', '>', 60).min({ lo: 'soggetto_id' }).first();
    expect(Number(soggetti?.['lo'])).to.equal(1013); // the demo's subjects are 1001..1012
  });

  it('stores exactly the generated rows, so a run with the same seed is reproducible', async () => {
    expect(generateRows('soggetto_recapito', seed, { id: 61, soggettoId: 1013 }, 50)).to.deep.equal(expected.soggetto_recapito!.slice(0, 50));
    expect(generateRows('soggetto_recapito', seed + 1, { id: 61, soggettoId: 1013 }, 50)).not.to.deep.equal(expected.soggetto_recapito!.slice(0, 50));
    for (const table of ['caratteristica_gruppo', 'soggetto_recapito'] as const) {
      const stored = await t.knex(table).where('id', '>', table === 'caratteristica_gruppo' ? 42 : 60).orderBy('id');
      const normalized = stored.map((r: Record<string, unknown>) => ('is_disattiva' in r ? { ...r, is_disattiva: Boolean(r['is_disattiva']) } : r));
      expect(normalized).to.deep.equal(expected[table]);
    }
  });

  it('fits the columns: int32 ids, string lengths in code points, Italian text with accents', () => {
    const cgRows = expected.caratteristica_gruppo!;
    const srRows = expected.soggetto_recapito!;
    const len = (v: unknown) => (typeof v === 'string' ? [...v].length : 0);
    expect(Math.max(...cgRows.map((r) => len(r['descrizione'])))).to.be.at.most(255);
    expect(Math.max(...srRows.map((r) => len(r['recapito'])))).to.be.at.most(255);
    expect(Math.max(...srRows.map((r) => len(r['codice_esterno'])))).to.be.at.most(100);
    expect(cgRows.some((r) => /[àèéìòù]/.test(String(r['descrizione'])))).to.equal(true);
    expect(new Set(srRows.map((r) => r['tipo_recapito_id']))).to.deep.equal(new Set([1, 2, 3, 4, 5]));
    expect(srRows.filter((r) => r['tipo_recapito_id'] === 4).every((r) => /^\+39 3\d{2} \d{7}$/.test(String(r['recapito'])))).to.equal(true);
    expect(srRows.filter((r) => r['tipo_recapito_id'] === 1).every((r) => /^[a-z0-9.-]+@[a-z0-9.-]+\.(it|com)$/.test(String(r['recapito'])))).to.equal(true);
  });

  it('is found by the query engine as the JSON API would find it', async () => {
    const cgRows = expected.caratteristica_gruppo!;
    const srRows = expected.soggetto_recapito!;
    const count = (list: Record<string, unknown>[], column: string, test: (folded: string) => boolean) =>
      list.filter((r) => typeof r[column] === 'string' && test(fold(r[column] as string))).length;
    const mine = { idGreaterThan: 42 };
    const elevatore = count(cgRows, 'descrizione', (v) => v.startsWith('impianto elevatore'));
    expect(elevatore).to.be.above(0);
    expect(await total(cg, { ...mine, descrizioneStartsWith: 'IMPIANTO ELEVATORE' })).to.equal(elevatore);
    // Accent-insensitive: "citta" finds "Città di Castello".
    expect(await total(cg, { ...mine, descrizioneContains: 'citta' })).to.equal(count(cgRows, 'descrizione', (v) => v.includes('citta')));
    expect(await total(cg, { ...mine, isDisattiva: true })).to.equal(cgRows.filter((r) => r['is_disattiva'] === true).length);
    expect(await total(sr, { idGreaterThan: 60, recapitoEndsWith: '@pec.it' })).to.equal(count(srRows, 'recapito', (v) => v.endsWith('@pec.it')));
    expect(await total(sr, { idGreaterThan: 60, codiceEsternoStartsWith: 'crm-' })).to.equal(srRows.filter((r) => r['codice_esterno'] !== null).length);
    expect(await total(sr, { idBetween: [seeded[1]!.firstId, seeded[1]!.lastId] })).to.equal(rows);
  });

  it('refuses, before writing anything, a load that would pass the int32 id limit', async () => {
    await t.knex('caratteristica_gruppo').insert({ id: 2 ** 31 - 100, descrizione: 'Ultimo', tipo_caratteristica_sezione_id: 1, is_disattiva: false, icona_immagine_id: 100, ordine_vista: 10 });
    const before = await t.knex('caratteristica_gruppo').count({ n: '*' }).first();
    const err = await seedBulk(t.db, { table: 'caratteristica_gruppo', rows: 100 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RangeError).with.property('message').match(/int32 limit/);
    expect(await t.knex('caratteristica_gruppo').count({ n: '*' }).first()).to.deep.equal(before);
  });

  it('the CLI loads the configured database and prints rows/s', async () => {
    const env: Record<string, string> = t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { SQLITE_FILE: t.sqliteFile! };
    const r = await runCli('seed', ['--rows', '1500', '--table=soggetto_recapito', '--batch', '400'], env);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^soggetto_recapito: 1,500 rows, ids \d+\.\.\d+, in [\d.]+ s = [\d,]+ rows\/s /);
    // Not a terminal: plain progress lines, no carriage returns.
    expect(r.stderr).to.match(/soggetto_recapito 1,500\/1,500 100% /).and.not.include('\r');
  });
});


describe('bulk seed CLI arguments', () => {
  const good: Array<[string[], object]> = [
    [['--rows', '10'], { rows: 10, table: 'all', seed: 1, batchRows: 2000 }],
    [['--rows=1_000_000', '--table', 'caratteristica_gruppo'], { rows: 1_000_000, table: 'caratteristica_gruppo', seed: 1, batchRows: 2000 }],
    [['--table=soggetto_recapito', '--rows', '5', '--seed', '7', '--batch', '5000'], { rows: 5, table: 'soggetto_recapito', seed: 7, batchRows: 5000 }],
  ];
  for (const [argv, args] of good) {
    it(`accepts ${argv.join(' ')}`, () => expect(parseSeedArgs(argv)).to.deep.equal({ kind: 'run', args }));
  }
  it('answers --help', () => expect(parseSeedArgs(['--rows', '1', '-h'])).to.deep.equal({ kind: 'help' }));

  const bad: Array<[string[], string]> = [
    [[], '--rows is required'],
    [['--rows'], '--rows needs a value'],
    [['--rows', '0'], '--rows must be between 1 and 2147483647, got 0'],
    [['--rows', '-5'], '--rows must be a whole number, got "-5"'],
    [['--rows', '1e6'], '--rows must be a whole number, got "1e6"'],
    [['--rows', '3000000000'], '--rows must be between 1 and 2147483647, got 3000000000'],
    [['--rows', '10', '--table', 'impianto'], '--table must be one of caratteristica_gruppo, soggetto_recapito, all, got "impianto"'],
    [['--rows', '10', '--batch', '6000'], '--batch must be between 1 and 5000, got 6000'],
    [['--rows', '10', '--colour', 'red'], 'unknown option --colour'],
    [['10'], 'unexpected argument 10'],
  ];
  for (const [argv, message] of bad) {
    it(`rejects ${JSON.stringify(argv)}: ${message}`, () => expect(parseSeedArgs(argv)).to.deep.equal({ kind: 'error', message }));
  }

  it('exits 2 with the message and the usage, before touching any database', async () => {
    const stderr = new PassThrough();
    let text = '';
    stderr.on('data', (d) => (text += d));
    // A DATABASE_URL that cannot be reached: the parser must fail first.
    const code = await runSeedCli(['--rows', 'many'], { stdout: new PassThrough(), stderr, env: { DATABASE_URL: 'mysql://nobody@127.0.0.1:1/none' } });
    expect(code).to.equal(2);
    expect(text).to.equal('seed: --rows must be a whole number, got "many"\nusage: npm run seed -- --rows N [--table caratteristica_gruppo|soggetto_recapito|all] [--seed S] [--batch B]\n');
    const spawned = await runCli('seed', ['--table', 'all'], {});
    expect([spawned.code, spawned.stderr.split('\n')[0]]).to.deep.equal([2, 'seed: --rows is required']);
  });
});
