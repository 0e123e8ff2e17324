// What SQLite's synchronous setting costs a write (design.md §8): the service's own
// session writes (a sign-in's session and token, a refresh's rotation) through its own
// connection, timed under NORMAL and FULL in alternating rounds on this machine's disk.
// The service runs FULL, which the guard below holds it to.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSession, refreshSession } from '../../src/auth/session-store.js';
import { connect, disconnect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { percentile, record, round } from './support/figures.js';

const rounds = 4;
const writesPerRound = 150;

describe('reliability: the cost of synchronous FULL against NORMAL (SQLite)', function () {
  this.timeout(300_000);

  it('measures a sign-in and a refresh under each setting; the service connects with FULL', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-sync-'));
    const db = connect({ sqliteFile: path.join(dir, 'sync.sqlite') });
    try {
      await migrate(db);
      const pragma = async (sql: string) => Object.values(((await db.knex.raw(sql)) as Array<Record<string, unknown>>)[0]!)[0];
      expect(await pragma('PRAGMA synchronous')).to.equal(2);
      expect(await pragma('PRAGMA journal_mode')).to.equal('wal');
      const [userId] = await db.knex('app_user').insert({ user_name: 'sync', user_name_key: 'sync', password_hash: 'x', created_at: new Date() });
      const times: Record<'NORMAL' | 'FULL', { signIn: number[]; refresh: number[] }> = { NORMAL: { signIn: [], refresh: [] }, FULL: { signIn: [], refresh: [] } };
      for (let r = 0; r < rounds; r++) {
        for (const mode of ['NORMAL', 'FULL'] as const) {
          // The pool's one connection: the setting holds for the writes below.
          await db.knex.raw(`PRAGMA synchronous = ${mode}`);
          for (let i = 0; i < writesPerRound; i++) {
            const t0 = performance.now();
            const issued = await db.knex.transaction((trx) => createSession(trx, String(userId), new Date(), 3600));
            const t1 = performance.now();
            await refreshSession(db, issued.refreshToken, new Date(), 3600, () => {}, 'rotate');
            times[mode].signIn.push(t1 - t0);
            times[mode].refresh.push(performance.now() - t1);
          }
        }
      }
      const us = (ms: number) => round(ms * 1000, 0);
      const figures: Record<string, string> = {};
      for (const mode of ['NORMAL', 'FULL'] as const) {
        figures[`${mode}: sign-in write (session + token), p50 / p99 (µs)`] = `${us(percentile(times[mode].signIn, 50))} / ${us(percentile(times[mode].signIn, 99))}`;
        figures[`${mode}: refresh (spend + new token), p50 / p99 (µs)`] = `${us(percentile(times[mode].refresh, 50))} / ${us(percentile(times[mode].refresh, 99))}`;
      }
      figures['writes per setting'] = String(rounds * writesPerRound);
      record('sqlite-synchronous', 'SQLite synchronous FULL (the service) against NORMAL, one connection, WAL', figures);
      // FULL syncs the WAL at every commit, NORMAL only at checkpoints: FULL is never the cheaper.
      expect(percentile(times.FULL.signIn, 50)).to.be.greaterThan(percentile(times.NORMAL.signIn, 50));
    } finally {
      await disconnect(db);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
