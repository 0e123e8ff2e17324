// The substring index (design.md §8, "Substring index"): a Contains or EndsWith the trigram
// index serves answers exactly what the same filter answers by a scan, on every shape of
// request, and rows written by any path are found or gone at once.
import { expect } from 'chai';
import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, disconnect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import * as substringIndexMigration from '../../src/db/migrations/008-substring-index.js';
import { watchReads, type ReadStatement } from '../../src/db/reads/select.js';
import { seedBulk } from '../../src/db/seed-bulk.js';
import { substringIndexes } from '../../src/db/substring-index/substring-index.js';
import type { QueryResponse } from '../../src/query/records.js';
import { runQuery } from '../../src/query/run-query.js';
import { createTestDb, type Knex, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { assertProperty } from '../support/property-seed.js';
import { sr, testContext } from '../support/query-catalog.js';
import { runCli } from '../support/run-cli.js';

const RUNS = Number(process.env['QUERY_PROPERTY_RUNS'] ?? 300);
const indexed = testContext();
const scanned = { ...indexed, substringIndex: false };

// Accents, case, LIKE's own characters, multi-byte text and characters whose folds differ in length.
const values = [
  'mario.rossi@pec.it', 'Mario.ROSSI@Pec.IT', 'Città di Castello', 'CITTÀ', 'perché no', '50%_off\\now', 'a_b%c\\d',
  '東京都港区', '😀 smile 😀', 'Straße', 'ÆSIR æsir', '+39 347 123 4567', '3471234567', 'ab', 'a', '', '  spaced  ',
  'İstanbul', 'ﬁne', 'naïve café', 'Ünïcödé', 'x"y"z', 'rossi rossi rossi',
];
const specialTerms = ['%', '_', '\\', '%_', '_o', 'ss', 'ß', 'æ', '😀', 'tà', 'TTÀ', 'ITTA', 'qqzzqq', '50%_', 'c\\d', '"y"', '東京', '京都港', 'ﬁ', 'fin', 'İst', 'ist', 'CAFE', 'é'];

function rowsOf(n: number): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    soggetto_id: (i % 13) + 1,
    tipo_recapito_id: i % 3,
    recapito: i % 17 === 0 ? null : `${values[i % values.length]}${i % 3 === 0 ? ` ${i}` : ''}`,
    codice_esterno: i % 5 === 0 ? null : values[(i * 7) % values.length],
  }));
}

/** 1 to 5 characters (code points) of a stored value, in a random letter case. */
const storedFragment = fc
  .tuple(fc.constantFrom(...values.filter((v) => v.length > 0)), fc.nat(), fc.integer({ min: 1, max: 5 }), fc.constantFrom('as is', 'upper', 'lower'))
  .map(([v, at, n, letterCase]) => {
    const chars = [...v];
    const start = at % chars.length;
    const piece = chars.slice(start, start + n).join('');
    return letterCase === 'upper' ? piece.toUpperCase() : letterCase === 'lower' ? piece.toLowerCase() : piece;
  });

const requestOf = fc.record({
  term: fc.oneof(storedFragment, fc.constantFrom(...specialTerms)),
  filter: fc.constantFrom('recapitoContains', 'recapitoEndsWith', 'codiceEsternoContains', 'codiceEsternoEndsWith'),
  orderBy: fc.option(fc.constantFrom('Recapito', '-Recapito', 'CodiceEsterno', '-Id'), { nil: undefined }),
  skip: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
  take: fc.integer({ min: 1, max: 8 }),
  include: fc.constantFrom(undefined, 'Total', 'EstimatedTotal', 'Total,EstimatedTotal'),
});

async function answer(t: TestDb, request: Record<string, unknown>, ctx = indexed): Promise<QueryResponse> {
  const got = await runQuery(t.db, sr, request, ctx);
  if (!got.ok) throw got.error;
  return got.value.response;
}

/** The statements a request reads. */
async function readsOf(t: TestDb, request: Record<string, unknown>, ctx = indexed): Promise<ReadStatement[]> {
  const reads: ReadStatement[] = [];
  const stop = watchReads(t.db, (s) => reads.push(s));
  try {
    await answer(t, request, ctx);
  } finally {
    stop();
  }
  return reads;
}

/** Whether the rows of a request come through a trigram table (the route's own count and EXPLAIN aside). */
async function readThroughIndex(t: TestDb, request: Record<string, unknown>, ctx = indexed): Promise<boolean> {
  const reads = await readsOf(t, request, ctx);
  return reads.some((r) => substringIndexes.some((s) => r.sql.includes(s.index) && !/^explain|count\(\*\)/i.test(r.sql.split('from')[0]!)));
}

/** `work` on a database and a folder of its own, both gone after it. */
async function withOwnDb(dialect: TestDb['dialect'], work: (other: TestDb, dir: string) => Promise<void>): Promise<void> {
  const other = await createTestDb(dialect);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-trigrams-'));
  try {
    await work(other, dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await other.drop().catch(() => undefined);
  }
}

forEachDialect('substring index', (dialect) => {
  let t: TestDb;
  before(async function () {
    this.timeout(60000);
    t = await createTestDb(dialect);
    await t.knex.batchInsert('soggetto_recapito', rowsOf(400), 200);
  });
  after(async () => t?.drop());

  it('the index serves a Contains of three characters or more, and a shorter one scans', async () => {
    expect(await readThroughIndex(t, { recapitoContains: 'rossi', take: 5 })).to.equal(true);
    expect(await readThroughIndex(t, { recapitoEndsWith: 'PEC.it', take: 5 })).to.equal(true);
    expect(await readThroughIndex(t, { recapitoContains: 'ro', take: 5 })).to.equal(false);
    expect((await answer(t, { recapitoContains: 'ROSSI', take: 100 })).results).to.have.length.above(10);
  });

  it('reads a term past the first page\'s bound through the index where the answer needs every match', async () => {
    // About 50 of the 400 rows hold `rossi`: past a first page's bound of 10, within every match's 1,000.
    const bounded = { ...indexed, substringUpTo: { firstPage: 10, everyMatch: 1000 } };
    expect(await readThroughIndex(t, { recapitoContains: 'rossi', take: 5 }, bounded), 'the first page of the key order scans').to.equal(false);
    for (const request of [{ recapitoContains: 'rossi', take: 5, include: 'Total' }, { recapitoContains: 'rossi', take: 5, orderBy: 'Recapito' }]) {
      expect(await readThroughIndex(t, request, bounded), JSON.stringify(request)).to.equal(true);
      expect(await answer(t, request, bounded)).to.deep.equal(await answer(t, request, scanned));
    }
    const tight = { ...indexed, substringUpTo: { firstPage: 10, everyMatch: 20 } };
    expect(await readThroughIndex(t, { recapitoContains: 'rossi', take: 5, include: 'Total' }, tight), 'past every match\'s bound, the scan').to.equal(false);
  });

  it(`${RUNS} random filters answer through the index as they answer by a scan`, async function () {
    this.timeout(120000);
    let served = 0;
    await assertProperty(
      fc.asyncProperty(requestOf, async ({ term, filter, orderBy, skip, take, include }) => {
        const request: Record<string, unknown> = { [filter]: term, take, ...(orderBy ? { orderBy } : {}), ...(skip !== undefined ? { skip } : {}), ...(include ? { include } : {}) };
        const want = await answer(t, request, scanned);
        expect(await answer(t, request), JSON.stringify(request)).to.deep.equal(want);
        if ([...term].length >= 3) served++;
        if (want.next !== undefined && skip === undefined) {
          const after = { ...request, after: want.next };
          expect(await answer(t, after), `after ${JSON.stringify(request)}`).to.deep.equal(await answer(t, after, scanned));
        }
      }),
      { numRuns: RUNS },
    );
    expect(served, 'terms of three characters or more').to.be.above(RUNS / 4);
  });

  describe('rows written between queries are found or gone at once', () => {
    const found = async (term: string) => (await answer(t, { recapitoContains: term, take: 50 })).results.map((r) => r['id']);

    it("an operator's own INSERT, UPDATE and DELETE", async () => {
      await t.knex.raw('INSERT INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (?, 1, 1, ?)', [9001, 'Zqxwv-unique']);
      expect(await found('QXWV')).to.deep.equal([9001]);
      await t.knex.raw('UPDATE soggetto_recapito SET recapito = ? WHERE id = ?', ['ZQXWV-UNIQUE', 9001]);
      expect(await found('qxwv-u')).to.deep.equal([9001]);
      await t.knex.raw('UPDATE soggetto_recapito SET recapito = ? WHERE id = ?', ['Other-ykjhg', 9001]);
      expect(await found('qxwv')).to.deep.equal([]);
      expect(await found('ykjhg')).to.deep.equal([9001]);
      await t.knex.raw('UPDATE soggetto_recapito SET recapito = NULL WHERE id = ?', [9001]);
      expect(await found('ykjhg')).to.deep.equal([]);
      await t.knex.raw('UPDATE soggetto_recapito SET recapito = ? WHERE id = ?', ['back-ykjhg', 9001]);
      await t.knex.raw('UPDATE soggetto_recapito SET id = ? WHERE id = ?', [9002, 9001]);
      expect(await found('ykjhg')).to.deep.equal([9002]);
      await t.knex.raw('DELETE FROM soggetto_recapito WHERE id = ?', [9002]);
      expect(await found('ykjhg')).to.deep.equal([]);
    });

    it('a REPLACE of a row', async () => {
      const replace = dialect === 'mysql' ? 'REPLACE' : 'INSERT OR REPLACE';
      await t.knex.raw(`${replace} INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (?, 1, 1, ?)`, [9003, 'first-plmok']);
      await t.knex.raw(`${replace} INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (?, 1, 1, ?)`, [9003, 'second-nbvcx']);
      expect(await found('plmok')).to.deep.equal([]);
      expect(await found('nbvcx')).to.deep.equal([9003]);
      await t.knex.raw('DELETE FROM soggetto_recapito WHERE id = ?', [9003]);
    });

    it('a load: into an empty table the index is filled before the commit, and a refused load leaves it as it was', async function () {
      this.timeout(60000);
      await withOwnDb(dialect, async (other, dir) => {
        const env: Record<string, string> = other.sqliteFile ? { SQLITE_FILE: other.sqliteFile } : { DATABASE_URL: other.databaseUrl! };
        const file = (name: string, lines: string[]) => {
          const f = path.join(dir, name);
          fs.writeFileSync(f, ['id,soggetto_id,tipo_recapito_id,recapito', ...lines, ''].join('\n'));
          return f;
        };
        const search = async (term: string) => (await answer(other, { recapitoContains: term, take: 50 })).results.map((r) => r['id']);
        expect((await runCli('load', ['soggetto_recapito', file('empty.csv', ['1,1,1,Città-kmjnh@pec.it', '2,1,1,altro@pec.it'])], env)).code).to.equal(0);
        expect(await search('TTA-KMJ')).to.deep.equal([1]);
        expect((await runCli('load', ['soggetto_recapito', file('more.csv', ['3,1,1,poiuy-kmjnh'])], env)).code).to.equal(0);
        expect(await search('kmjnh')).to.deep.equal([1, 3]);
        expect((await runCli('load', ['soggetto_recapito', file('bad.csv', ['4,1,1,qazws-kmjnh', '3,1,1,duplicate'])], env)).code).to.equal(1);
        expect(await search('kmjnh')).to.deep.equal([1, 3]);
        expect(await search('qazws')).to.deep.equal([]);
        // Rows without ids take the table's next ones.
        const auto = path.join(dir, 'auto.csv');
        fs.writeFileSync(auto, 'soggetto_id,tipo_recapito_id,recapito\n1,1,auto-kmjnh\n');
        expect((await runCli('load', ['soggetto_recapito', auto], env)).code).to.equal(0);
        expect(await search('kmjnh')).to.have.length(3);
      });
    });

    if (dialect === 'mysql') {
      it('a TRUNCATE, which fires no trigger: ids used again, and a load into the emptied table, are found', async function () {
        this.timeout(60000);
        await withOwnDb(dialect, async (other, dir) => {
          const search = async (term: string) => (await answer(other, { recapitoContains: term, take: 50 })).results.map((r) => r['id']);
          await other.knex.raw('INSERT INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (1, 1, 1, ?), (2, 1, 1, ?)', ['old-tgbyh', 'old-ujmik']);
          await other.knex.raw('TRUNCATE TABLE soggetto_recapito');
          await other.knex.raw('INSERT INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (1, 1, 1, ?)', ['new-tgbyh']);
          expect(await search('new-tgb')).to.deep.equal([1]);
          expect(await search('old-tgb')).to.deep.equal([]);
          await other.knex.raw('TRUNCATE TABLE soggetto_recapito');
          const file = path.join(dir, 'load.csv');
          fs.writeFileSync(file, 'id,soggetto_id,tipo_recapito_id,recapito\n2,1,1,loaded-ujmik\n');
          const run = await runCli('load', ['soggetto_recapito', file], { DATABASE_URL: other.databaseUrl! });
          expect(run.code, run.stdout + run.stderr).to.equal(0);
          expect(await search('loaded-ujm')).to.deep.equal([2]);
          expect(await search('old-ujm')).to.deep.equal([]);
        });
      });
    }

    if (dialect === 'sqlite') {
      it('a restore of the file: the backup\'s rows are found, later ones gone', async function () {
        this.timeout(60000);
        await withOwnDb(dialect, async (other, dir) => {
          const env = { SQLITE_FILE: other.sqliteFile! };
          await other.knex.raw('INSERT INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (1, 1, 1, ?)', ['backed-okmij']);
          const backup = path.join(dir, 'backup.sqlite');
          expect((await runCli('backup', [backup], env)).code).to.equal(0);
          await other.knex.raw('INSERT INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (2, 1, 1, ?)', ['later-okmij']);
          await disconnect(other.db); // restore refuses while a connection holds the file
          const run = await runCli('restore', [backup], env);
          expect([run.code, run.stderr]).to.deep.equal([0, '']);
          const restored = connect({ sqliteFile: other.sqliteFile! });
          try {
            const got = await runQuery(restored, sr, { recapitoContains: 'OKMIJ', take: 50, include: 'Total' }, indexed);
            if (!got.ok) throw got.error;
            expect([got.value.response.results.map((r) => r['id']), got.value.response.total]).to.deep.equal([[1], 1]);
          } finally {
            await disconnect(restored);
          }
        });
      });

      it("the operator's SQL prompt with --write", async () => {
        const run = await runCli('db', ['sql', '--write'], { SQLITE_FILE: t.sqliteFile! }, "INSERT INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (9004, 1, 1, 'prompt-wsxed');\n");
        expect(run.code, run.stderr).to.equal(0);
        expect(await found('WSXED')).to.deep.equal([9004]);
        await runCli('db', ['sql', '--write'], { SQLITE_FILE: t.sqliteFile! }, 'DELETE FROM soggetto_recapito WHERE id = 9004;\n');
        expect(await found('wsxed')).to.deep.equal([]);
      });
    }

    it('the migration fills the index of the rows already there, and its down() leaves plain tables that still take writes', async () => {
      await substringIndexMigration.down(t.knex);
      await t.knex('knex_migrations').where({ name: substringIndexMigration.name }).delete();
      // What a run that failed half-way leaves: the migration clears it and runs again.
      await t.knex.raw('CREATE TABLE substring_positions (n SMALLINT)');
      await t.knex.raw('INSERT INTO soggetto_recapito (id, soggetto_id, tipo_recapito_id, recapito) VALUES (9005, 1, 1, ?)', ['before-rfvtg']);
      // The code of the version before the index scans (a rolled-back database is for that code).
      expect(await answer(t, { recapitoContains: 'rfvtg', take: 5 }, scanned)).to.have.nested.property('results[0].id', 9005);
      await migrate(t.db);
      expect(await readThroughIndex(t, { recapitoContains: 'rfvtg', take: 5 })).to.equal(true);
      expect(await found('RFVTG')).to.deep.equal([9005]);
      await t.knex.raw('DELETE FROM soggetto_recapito WHERE id = 9005');
      expect(await found('rfvtg')).to.deep.equal([]);
    });

    it('a bulk seed, whose batches fill the index by one statement each', async () => {
      const [seeded] = await seedBulk(t.db, { table: 'soggetto_recapito', rows: 300, batchRows: 50, batchesPerTransaction: 2 });
      const stored = await t.knex('soggetto_recapito').whereBetween('id', [seeded!.firstId, seeded!.lastId]).whereNotNull('recapito').select('id', 'recapito');
      expect(stored).to.have.length.above(100);
      for (const { id, recapito } of stored.filter((_, i) => i % 29 === 0)) {
        const term = [...String(recapito)].slice(1, 7).join('');
        const request = { recapitoContains: term, take: 1000 };
        const got = await answer(t, request);
        expect(got.results.map((r) => r['id']), term).to.include(id);
        expect(got).to.deep.equal(await answer(t, request, scanned));
      }
    });
  });
});

/** EXPLAIN (MySQL) or EXPLAIN QUERY PLAN (SQLite) of a statement as the engine sent it. */
async function explain(t: TestDb, { sql, bindings }: ReadStatement): Promise<string> {
  if (t.dialect === 'mysql') return JSON.stringify(((await t.knex.raw(`EXPLAIN ${sql}`, bindings as Knex.RawBinding[])) as [unknown[]])[0]);
  return JSON.stringify(((await t.knex.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings as Knex.RawBinding[])) as Array<{ detail: string }>).map((r) => r.detail));
}

forEachDialect('substring index plans', (dialect) => {
  const ROWS = 5_000;
  let t: TestDb;
  before(async function () {
    this.timeout(120000);
    t = await createTestDb(dialect);
    const ids = Array.from({ length: ROWS }, (_, i) => i + 1);
    await t.knex.batchInsert('soggetto_recapito', ids.map((i) => ({ id: i, soggetto_id: i % 997, tipo_recapito_id: i % 7, recapito: `utente${i}@dominio${i % 50}.it`, codice_esterno: null })), 500);
    if (dialect === 'mysql') await t.knex.raw('ANALYZE TABLE soggetto_recapito, soggetto_recapito_recapito_trigrams');
    else await t.knex.raw('ANALYZE');
  });
  after(async () => t?.drop());

  /** The page statement of a request: the one that reads the contacts' columns. */
  async function pageStatement(request: Record<string, unknown>): Promise<ReadStatement> {
    const reads = await readsOf(t, request);
    const page = reads.find((r) => /recapito/.test(r.sql.split(/ from /i)[0]!));
    if (page === undefined) throw new Error(`no page statement in ${JSON.stringify(reads)}`);
    return page;
  }

  for (const request of [{ recapitoContains: 'tente1234@', take: 50 }, { recapitoContains: 'tente1234@', take: 50, orderBy: 'Recapito' }, { recapitoEndsWith: '1234@dominio34.it', take: 50 }]) {
    it(`${JSON.stringify(request)}: the trigram index gives the rows, read by their key`, async () => {
      const statement = await pageStatement(request);
      const plan = await explain(t, statement);
      if (dialect === 'sqlite') {
        expect(plan).to.match(/SCAN soggetto_recapito_recapito_trigrams VIRTUAL TABLE INDEX/);
        expect(plan).to.match(/SEARCH soggetto_recapito USING INTEGER PRIMARY KEY/);
        expect(plan).not.to.match(/SCAN soggetto_recapito\b(?!_)/);
      } else {
        const rows = JSON.parse(plan) as Array<Record<string, unknown>>;
        const base = rows.find((r) => r['table'] === 'soggetto_recapito');
        expect(base?.['type'], plan).to.equal('eq_ref');
        expect(base?.['key'], plan).to.equal('PRIMARY');
        // The rarest gram's rows, read from the trigram table's primary key, drive the lookups
        // (the next rarest gram's, where there is one, looked up by the same key).
        const grams = rows.filter((r) => ['a', 'b', 'soggetto_recapito_recapito_trigrams'].includes(String(r['table'])));
        expect(grams.map((r) => r['key']), plan).to.have.members(grams.map(() => 'PRIMARY')).and.to.have.length.above(0);
        expect(grams[0]?.['type'], plan).to.equal('ref');
        expect(rows[0]?.['table'], plan).to.equal('<subquery2>');
        // Every row holds `ten`, `ent` and `nte`: the grams looked up are the term's rare ones.
        expect(statement.bindings.filter((b) => ['ten', 'ent', 'nte', 'dom', 'omi', 'min', 'ini', 'nio'].includes(String(b))), statement.sql).to.deep.equal([]);
      }
    });
  }
});
