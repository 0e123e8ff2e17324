// How many times the service's own bulk writes (the loader, the seed) move a table's version,
// as a reader sees it after the commit (design.md §8, "Table versions"): once per write
// transaction, whether it writes 1 row or N.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { seedBulk } from '../../src/db/seed-bulk.js';
import { createTestDb, type Knex, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';
import { runCli } from '../support/run-cli.js';

const table = 'soggetto_recapito';
const contact = (id: number) => ({ id, soggetto_id: 1, tipo_recapito_id: 1, recapito: `m${id}@pec.it`, codice_esterno: null });

const versionOf = async (db: Knex): Promise<bigint> =>
  BigInt(String((await db('table_versions').where({ table_name: table }).first('version'))!.version));

/**
 * The moves `write` makes, as a reader counts them after it returns. Every move is
 * max(version + 1, the clock in µs): with the version set a year past the clock first, the
 * `+ 1` wins each time, so the difference counts the moves exactly.
 */
async function movesOf(db: Knex, write: () => Promise<unknown>): Promise<bigint> {
  const ahead = BigInt(Date.now() + 365 * 86_400_000) * 1000n;
  await db('table_versions').where({ table_name: table }).update({ version: ahead.toString() });
  expect(await versionOf(db), 'the version a reader sees before the write').to.equal(ahead);
  await write();
  return (await versionOf(db)) - ahead;
}

forEachDialect('table versions: moves per write transaction', (dialect) => {
  let t: TestDb;
  let dir: string;
  before(async () => {
    t = await createTestDb(dialect);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-moves-'));
  });
  after(async () => {
    await t.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('moves once for a load of 5 rows, one transaction', async () => {
    const csv = path.join(dir, 'five.csv');
    fs.writeFileSync(csv, `id,soggetto_id,tipo_recapito_id,recapito\n${[11, 12, 13, 14, 15].map((id) => `${id},1,1,l${id}@pec.it`).join('\n')}\n`);
    const env: Record<string, string> = t.sqliteFile ? { SQLITE_FILE: t.sqliteFile } : { DATABASE_URL: t.databaseUrl! };
    const moves = await movesOf(t.knex, async () => {
      const run = await runCli('load', [table, csv], env);
      expect(run.code, run.stderr).to.equal(0);
    });
    expect(Number(moves)).to.equal(1);
  });

  it('moves three times for a bulk seed of 300 rows in three transactions', async () => {
    const moves = await movesOf(t.knex, () => seedBulk(t.db, { rows: 300, table, batchRows: 50, batchesPerTransaction: 2 }));
    expect(Number(moves)).to.equal(3);
  });
});
