// The page path reads its rows as a Table (src/db/reads/select.ts, selectTable); other reads keep
// objects (selectRows). One SELECT text may be run both ways on one connection: SQLite's
// statement cache holds one statement per text, switched in and out of raw mode, and MySQL's
// one prepared statement serves both, so each way must come back as asked, whichever ran before.
import { expect } from 'chai';
import { connect, disconnect } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { cellOf, selectRows, selectTable, type Table } from '../../src/db/reads/select.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';

const sql = 'select codice_esterno, id, recapito from soggetto_recapito where id in (?, ?) order by id';

/** Each row's cells in column order, read through the table's keys, whichever form the driver's rows have. */
const cellsOf = (table: Table) => table.rows.map((row) => table.keys.map((k) => cellOf(row, k)));

forEachDialect('selectTable and selectRows', (dialect) => {
  let t: TestDb;
  let db: Database;
  before(async () => {
    t = await createTestDb(dialect);
    await t.knex('soggetto_recapito').insert([
      { id: 1, soggetto_id: 1, tipo_recapito_id: 1, recapito: 'r1', codice_esterno: 'X1' },
      { id: 2, soggetto_id: 1, tipo_recapito_id: 1, recapito: 'r2', codice_esterno: null },
    ]);
    // One connection on MySQL: both ways on the same prepared statement.
    db = dialect === 'mysql' ? connect({ databaseUrl: t.databaseUrl!, poolMax: 1 }) : t.db;
  });
  after(async () => {
    if (db !== t.db) await disconnect(db);
    await t.drop();
  });

  it('gives the columns in statement order and each row\'s cells by its keys, NULL kept as null', async () => {
    const table = await selectTable(db, sql, [2, 1]);
    expect(table.columns).to.deep.equal(['codice_esterno', 'id', 'recapito']);
    expect(table.keys).to.deep.equal(dialect === 'mysql' ? table.columns : [0, 1, 2]);
    expect(cellsOf(table)).to.deep.equal([['X1', 1, 'r1'], [null, 2, 'r2']]);
  });

  it('runs the same text as objects and as a table, alternately, each as asked', async () => {
    for (let i = 0; i < 2; i++) {
      expect(await selectRows(db, sql, [1, 2])).to.deep.equal([
        { codice_esterno: 'X1', id: 1, recapito: 'r1' },
        { codice_esterno: null, id: 2, recapito: 'r2' },
      ]);
      expect(cellsOf(await selectTable(db, sql, [1, 2]))).to.deep.equal([['X1', 1, 'r1'], [null, 2, 'r2']]);
    }
  });

  it('gives the columns of an empty answer', async () => {
    const table = await selectTable(db, sql, [98, 99]);
    expect([table.columns, table.rows]).to.deep.equal([['codice_esterno', 'id', 'recapito'], []]);
  });

  it('rejects with the driver error for a text the engine refuses', async () => {
    const err = await selectTable(db, 'select no_such_column from soggetto_recapito', []).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
  });
});
