// Contains and EndsWith served by the substring index (design.md §7, "Substring search")
// answer exactly as the same filter forced to a scan: the same DTO with `substringIndex`
// off renders the plain LIKE. Random substrings of stored values (accents, mixed case, `%`,
// `_`, `\`, `"`, multi-byte characters), terms of 1-5 characters, with and without an
// order, Skip, a cursor and Total; rows written between queries through the loader and
// through plain SQL (an operator's own, as `db sql --write` runs it) are found or gone at once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { loadFile } from '../../src/cli/load-run.js';
import type { QueryDtoSpec } from '../../src/query/catalog-types.js';
import { runQuery } from '../../src/query/run-query.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { sr, testContext } from '../support/query-catalog.js';

const RUNS = Number(process.env['SUBSTRING_PROPERTY_RUNS'] ?? 40);
const ctx = testContext();
/** The same DTO with every field's substring index off: its Contains and EndsWith scan. */
const scanned: QueryDtoSpec = { ...sr, fields: sr.fields.map((f) => (f.family === 'string' ? { ...f, substringIndex: false } : f)) };

const pieces = ['rossi', 'Città', 'CITTA', 'è', 'É', '50%', 'a_b', 'x\\y', '"q"', ' ', '.', '@pec', '347', '12', 'ß', 'Œuvre', '日本語', 'ça', 'naïve', 'Ünïcödé'];
const valueOf = fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 5 }).map((p) => p.join(''));

/** A random 1-5 character slice of a stored value, its case flipped at random. */
const termOf = (values: readonly string[]) =>
  fc.tuple(fc.constantFrom(...values), fc.nat(), fc.integer({ min: 1, max: 5 }), fc.boolean()).map(([value, start, length, upper]) => {
    const points = [...value];
    const from = start % points.length;
    const term = points.slice(from, from + length).join('');
    return upper ? term.toUpperCase() : term;
  });

const shapeOf = fc.record({
  op: fc.constantFrom('recapitoContains', 'recapitoEndsWith', 'codiceEsternoContains'),
  orderBy: fc.constantFrom(undefined, 'Recapito', '-Recapito', 'SoggettoId'),
  skip: fc.constantFrom(0, 0, 2),
  take: fc.constantFrom(3, 50),
  total: fc.boolean(),
});

forEachDialect('substring index', (dialect) => {
  let t: TestDb;
  let nextId = 1;
  const stored: string[] = [];
  const insert = async (rows: number, value: () => string) => {
    const batch = Array.from({ length: rows }, () => {
      const v = value();
      stored.push(v);
      return { id: nextId++, soggetto_id: nextId % 7, tipo_recapito_id: 1, recapito: v, codice_esterno: v.slice(0, 100) };
    });
    await t.db.batchInsert('soggetto_recapito', batch, 100);
  };
  before(async function () {
    this.timeout(60000);
    t = await createTestDb(dialect);
    const sample = fc.sample(valueOf, { numRuns: 200, seed: 54 });
    let i = 0;
    await insert(200, () => sample[i++]!);
  });
  after(async () => t.drop());

  /** Both answers of one request, and every page after it by cursor. */
  const agree = async (request: Record<string, unknown>) => {
    for (let page = 0; page < 3; page++) {
      const [served, scan] = await Promise.all([runQuery(t.db, sr, request, ctx), runQuery(t.db, scanned, request, ctx)]);
      if (!served.ok || !scan.ok) throw new Error(`refused: ${JSON.stringify(request)}`);
      expect(served.value.response, JSON.stringify(request)).to.deep.equal(scan.value.response);
      const next = served.value.response.next;
      if (next === undefined) return;
      request = { ...request, skip: 0, after: next };
    }
  };

  it(`${RUNS} random substrings answer as the scan does, between writes`, async function () {
    this.timeout(120000);
    await fc.assert(
      fc.asyncProperty(termOf(stored), shapeOf, fc.nat(), async (term, shape, write) => {
        await agree({
          [shape.op]: term,
          take: shape.take,
          skip: shape.skip,
          ...(shape.orderBy ? { orderBy: shape.orderBy } : {}),
          ...(shape.total ? { include: 'Total' } : {}),
        });
        // An operator's own SQL between queries: an update, a delete, a new row.
        const id = 1 + (write % (nextId - 1));
        if (write % 3 === 0) await t.db('soggetto_recapito').where({ id }).update({ recapito: `${term}${stored[write % stored.length]}` });
        if (write % 3 === 1) await t.db('soggetto_recapito').where({ id }).delete();
        if (write % 3 === 2) await insert(1, () => `x${term}y`);
      }),
      { numRuns: RUNS, seed: Number(process.env['SUBSTRING_PROPERTY_SEED'] ?? 20540) },
    );
  });

  const ids = async (filter: Record<string, string>) => {
    const got = await runQuery(t.db, sr, { fields: 'Id', take: 1000, ...filter }, ctx);
    if (!got.ok) throw got.error;
    return got.value.response.results.map((r) => r['id']);
  };

  it('rows written by plain SQL are found at once, and gone once deleted or changed', async () => {
    await t.db('soggetto_recapito').insert({ id: 90001, soggetto_id: 1, tipo_recapito_id: 1, recapito: 'Perugia-Città 50%_off\\x' });
    expect(await ids({ recapitoContains: 'citta 50%_OFF\\' })).to.deep.equal([90001]);
    await t.db('soggetto_recapito').where({ id: 90001 }).update({ recapito: 'altrove' });
    expect(await ids({ recapitoContains: 'citta' })).to.not.include(90001);
    expect(await ids({ recapitoEndsWith: 'ROVE' })).to.include(90001);
    await t.db('soggetto_recapito').where({ id: 90001 }).update({ id: 90002 });
    expect(await ids({ recapitoContains: 'altrove' })).to.deep.equal([90002]);
    await t.db('soggetto_recapito').where({ id: 90002 }).delete();
    expect(await ids({ recapitoContains: 'altrove' })).to.deep.equal([]);
  });

  it('rows the loader writes are found at once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-substring-'));
    try {
      const file = path.join(dir, 'rows.csv');
      fs.writeFileSync(file, 'Id,SoggettoId,TipoRecapitoId,Recapito\n90101,1,1,ufficio@Perùgia.it\n90102,1,1,"casa ""perugia"""\n');
      const loaded = await loadFile(t.db, {
        table: 'soggetto_recapito', file, format: 'csv', maxErrors: 10, maxLineBytes: 1 << 20, via: 'insert',
        progress: { tick: () => undefined, end: () => undefined }, report: (p) => expect.fail(p.message),
      });
      expect(loaded.ok).to.equal(true);
      expect(await ids({ recapitoContains: 'PERUGIA' })).to.deep.equal([90101, 90102]);
      expect(await ids({ recapitoContains: '"perugia"' })).to.deep.equal([90102]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
