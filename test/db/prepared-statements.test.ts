// The read path runs its SELECTs as prepared statements on MySQL (src/db/reads/select.ts): each
// text is prepared once per connection and executed after that, and a connection keeps a
// bounded number of them (src/db/connect.ts), since the server caps them for all its
// clients together. Read off the server's own counters, on a read pool of one connection,
// asked through the read path itself: its own status statement is one more prepared text.
import { expect } from 'chai';
import { connect, disconnect } from '../../src/db/connect.js';
import { selectRows } from '../../src/db/reads/select.js';
import type { Database } from '../../src/db/database.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { dialects } from '../support/dialects.js';

const perConnection = 100;

/**
 * A counter of the read connection, read on it: the status text is prepared on its first
 * read and executed on each, which `ownExecutions` takes out again.
 */
async function status(db: Database, scope: 'SESSION' | 'GLOBAL', name: string): Promise<number> {
  const rows = await selectRows<{ value: string }>(db, `SELECT VARIABLE_VALUE AS value FROM information_schema.${scope}_STATUS WHERE VARIABLE_NAME = ?`, [name.toUpperCase()]);
  return Number(rows[0]!.value);
}
/** Executions the status reads between two reads of Com_stmt_execute add: the later read's own, and one read in between. */
const ownExecutions = 2;

/** A SELECT of `n` ids by In: one statement text per list length. */
const idIn = (n: number) => `select \`id\`, \`recapito\` from \`soggetto_recapito\` where \`id\` in (${Array(n).fill('?').join(', ')}) order by \`id\` asc`;

// Declared only when the run covers MySQL (DIALECTS): it has no SQLite counterpart.
if (dialects.includes('mysql')) describe('prepared read statements [mysql]', () => {
  let t: TestDb;
  let db: Database;
  before(async () => {
    t = await createTestDb('mysql');
    await t.knex('soggetto_recapito').insert(Array.from({ length: 20 }, (_, i) => ({ id: i + 1, soggetto_id: 1, tipo_recapito_id: 1, recapito: `r${i + 1}` })));
    db = connect({ databaseUrl: t.databaseUrl!, poolMax: 1 });
  });
  after(async () => {
    if (db) await disconnect(db);
    await t?.drop();
  });

  it('prepares a text once on a connection and executes it after that, with each request its own values', async () => {
    const prepared = await status(db, 'SESSION', 'Com_stmt_prepare');
    const executed = await status(db, 'SESSION', 'Com_stmt_execute');
    const answers = [];
    for (let i = 1; i <= 5; i++) answers.push(await selectRows<{ id: number; recapito: string }>(db, idIn(2), [i, i + 10]));
    expect(await status(db, 'SESSION', 'Com_stmt_prepare')).to.equal(prepared + 1);
    expect(await status(db, 'SESSION', 'Com_stmt_execute')).to.equal(executed + 5 + ownExecutions);
    expect(answers.map((rows) => rows.map((r) => r.id))).to.deep.equal([[1, 11], [2, 12], [3, 13], [4, 14], [5, 15]]);
    expect(answers[2]![1]!.recapito).to.equal('r13');
  });

  it(`keeps at most ${perConnection} statements on the server per connection, closing the least recently used`, async () => {
    await status(db, 'SESSION', 'Com_stmt_prepare');
    const held = await status(db, 'GLOBAL', 'Prepared_stmt_count');
    for (let n = 1; n <= perConnection + 50; n++) await selectRows(db, idIn(n), Array.from({ length: n }, (_, i) => i + 1));
    const after = await status(db, 'GLOBAL', 'Prepared_stmt_count');
    expect(after - held).to.be.at.most(perConnection).and.at.least(perConnection - 2);
    // The text used longest ago was closed: running it again prepares it again.
    const prepared = await status(db, 'SESSION', 'Com_stmt_prepare');
    await selectRows(db, idIn(3), [1, 2, 3]);
    expect(await status(db, 'SESSION', 'Com_stmt_prepare')).to.equal(prepared + 1);
  });
});
