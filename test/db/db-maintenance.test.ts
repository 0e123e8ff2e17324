// The service's own maintenance of its database (design.md §8), on both engines: statistics
// gathered again for the tables whose rows moved a lot (SQLite's PRAGMA optimize; ANALYZE
// TABLE on MySQL/MariaDB), a turn after each purge that deleted rows and on the schedule,
// each turn one log line and one count; a failed turn is a warning, and on MySQL one node
// at a time takes the turn.
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { schedulePurge } from '../../src/auth/token-purge.js';
import { connect, disconnect } from '../../src/db/connect.js';
import type { Dialect } from '../../src/db/dialect.js';
import { createMaintainer, movedALot } from '../../src/db/maintenance/maintenance.js';
import { scheduleMaintenance } from '../../src/db/maintenance/maintenance-schedule.js';
import { withNamedLock } from '../../src/db/named-lock.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';

interface LogLine { level: number; msg: string; trigger?: string; analyzed?: string[]; ms?: number; freePages?: number }

function capture(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as LogLine); done(); } });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

const until = async (done: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
};

describe('maintenance: what moved a lot', () => {
  const cases: Array<[string, number, number, boolean]> = [
    ['an empty table that gained a thousand rows', 0, 1000, true],
    ['an empty table that gained 999', 0, 999, false],
    ['a fifth more of a large table', 100_000, 120_000, true],
    ['a little less than a fifth', 100_000, 80_001, false],
    ['half deleted', 100_000, 50_000, true],
  ];
  for (const [name, then, now, want] of cases) it(`${name}: ${want}`, () => expect(movedALot(then, now)).to.equal(want));
});

forEachDialect('database maintenance', (dialect: Dialect) => {
  let tdb: TestDb;
  beforeEach(async () => { tdb = await createTestDb(dialect); });
  afterEach(() => tdb.drop());

  /** n rows of soggetto_recapito from one statement (MariaDB caps a recursive CTE at 1,000 iterations). */
  const addRows = (n: number) => tdb.knex.raw(
    `INSERT INTO soggetto_recapito (soggetto_id, tipo_recapito_id, recapito, codice_esterno)
     WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 99)
     SELECT a.i * 100 + b.i, 1, 'r', 'c' FROM k a CROSS JOIN k b WHERE a.i * 100 + b.i < ?`, [n]);

  it('gathers statistics again for a table whose rows moved a lot, and then leaves it alone', async () => {
    const maintainer = createMaintainer(tdb.db);
    const first = await maintainer.turn();
    if (dialect === 'mysql') expect(first.analyzed, 'the first turn only counts').to.deep.equal([]);
    await addRows(5000);
    const second = await maintainer.turn();
    if (dialect === 'mysql') {
      expect(second.analyzed).to.deep.equal(['soggetto_recapito']);
      const [stats] = (await tdb.knex.raw('SELECT n_rows FROM mysql.innodb_table_stats WHERE database_name = DATABASE() AND table_name = ?', ['soggetto_recapito'])) as [Array<{ n_rows: number }>];
      expect(Number(stats[0]?.n_rows), 'InnoDB\'s statistics, sampled').to.be.within(4500, 5500);
    } else {
      expect(second.analyzed).to.include('soggetto_recapito');
      expect(second.freePages).to.be.a('number');
      const stat = await tdb.knex('sqlite_stat1').where({ idx: 'ix_soggetto_recapito_soggetto_id' }).first('stat');
      expect(stat.stat).to.match(/^5000 /);
    }
    const third = await maintainer.turn();
    expect(third.analyzed).not.to.include('soggetto_recapito');
  });

  it('takes a turn after each purge that deleted rows, and none after one that deleted nothing: one log line each, counted', async () => {
    const { logger, lines } = capture();
    await tdb.knex('app_user').insert({ id: 1, user_name: 'anna', user_name_key: 'anna', password_hash: 'x', created_at: new Date(Date.now() - 86400e3) });
    await tdb.knex('auth_session').insert({ id: 's1', user_id: 1, created_at: new Date(Date.now() - 7200e3), revoked_at: new Date(Date.now() - 3600e3) });
    const maintenance = scheduleMaintenance({ db: tdb.db, logger, intervalS: 0 });
    const purge = schedulePurge({ db: tdb.db, clock: () => new Date(), logger, intervalS: 1, afterPurge: () => maintenance.afterPurge() });
    const purges = () => lines.filter((l) => l.msg === 'purged refresh tokens and sessions').length;
    await until(() => purges() >= 2);
    await purge.stop();
    await maintenance.stop();
    expect(purge.purged()).to.deep.equal({ tokens: 0, sessions: 1 });
    expect(purges()).to.be.at.least(2);
    const turns = lines.filter((l) => l.msg === 'database maintenance');
    expect(turns).to.have.length(1);
    expect(turns[0]).to.include({ level: 30, trigger: 'purge' });
    expect(turns[0]!.analyzed).to.be.an('array');
    expect(turns[0]!.ms).to.be.a('number');
    expect(maintenance.turns()).to.deep.equal({ purge: 1, schedule: 0 });
  });

  it('takes a turn every MAINTENANCE_INTERVAL_S, counted apart', async () => {
    const { logger, lines } = capture();
    const maintenance = scheduleMaintenance({ db: tdb.db, logger, intervalS: 1 });
    await until(() => maintenance.turns().schedule >= 1);
    await maintenance.stop();
    expect(maintenance.turns().schedule).to.be.at.least(1);
    expect(lines.filter((l) => l.msg === 'database maintenance').map((l) => l.trigger)).to.include('schedule');
  });

  it('a turn that fails is a warning and no count; the next turn tries again', async () => {
    const { logger, lines } = capture();
    const gone = connect({ databaseUrl: tdb.databaseUrl, sqliteFile: tdb.sqliteFile });
    await disconnect(gone);
    const maintenance = scheduleMaintenance({ db: gone, logger, intervalS: 0 });
    await maintenance.afterPurge();
    expect(lines.map((l) => [l.level, l.msg])).to.deep.equal([[40, 'database maintenance failed; the next turn tries again']]);
    expect(maintenance.turns()).to.deep.equal({ purge: 0, schedule: 0 });
  });

  if (dialect === 'mysql') {
    it('one node at a time: while another node holds the turn, this one skips it', async () => {
      const { logger, lines } = capture();
      const maintenance = scheduleMaintenance({ db: tdb.db, logger, intervalS: 0 });
      const held = await withNamedLock(tdb.db, 'impianti_api_maintenance', 0, () => maintenance.afterPurge());
      expect(held.held).to.equal(true);
      expect(maintenance.turns()).to.deep.equal({ purge: 0, schedule: 0 });
      expect(lines.map((l) => l.msg)).to.deep.equal(['database maintenance skipped: another node holds the turn']);
      await maintenance.afterPurge();
      expect(maintenance.turns(), 'with the lock free again, the turn is taken').to.deep.equal({ purge: 1, schedule: 0 });
    });
  }
});
