// 100 parallel registrations over 20 names (issue 7): five attempts per name, in different
// letter cases and with different passwords, all at once, through the default hashing
// bounds (HASH_CONCURRENCY 4, HASH_QUEUE 256) at a scrypt cost of 2^12 so that the run
// fits CI time (the race is decided by the unique index, whatever the cost).
// Exactly 20 users exist afterwards; each name was won once (200) and lost four times
// (409 AlreadyExists on UserName); each winner signs in with its own password, and no
// loser's password works. On the private MariaDB and on SQLite.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { connect, disconnect } from '../../src/db/connect.js';
import { record, round } from './support/figures.js';
import { startTarget, type ReliabilityTarget } from './support/reliability-target.js';
import { startService, type ServiceProcess } from './support/service-process.js';
import { send } from './support/traffic.js';
import type { Knex } from '../support/db.js';

const names = Array.from({ length: 20 }, (_, i) => `racer${String(i).padStart(2, '0')}`);
const spellings = (n: string) => [n, n.toUpperCase(), n[0]!.toUpperCase() + n.slice(1), n.replace('r', 'R'), n.replace('c', 'C')];

interface Engine { readonly url: string; readonly db: Knex; close(): Promise<void> }

async function race(engine: Engine, label: string): Promise<void> {
  const before = Number((await engine.db('app_user').count({ n: '*' }))[0]?.['n']);
  const attempts = names.flatMap((n) => spellings(n).map((userName, k) => ({ name: n, userName, password: `password-${userName}-${k}` })));
  const started = performance.now();
  const answers = await Promise.all(attempts.map(async (a) => ({
    ...a,
    res: await fetch(`${engine.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: a.userName, password: a.password }) }),
  })));
  const seconds = (performance.now() - started) / 1000;
  const outcome = await Promise.all(answers.map(async (a) => ({ ...a, status: a.res.status, body: (await a.res.json()) as { responseStatus?: { errorCode: string; errors: Array<{ fieldName: string }> } } })));
  const after = Number((await engine.db('app_user').count({ n: '*' }))[0]?.['n']);

  const winners = outcome.filter((o) => o.status === 200);
  const losers = outcome.filter((o) => o.status === 409);
  const signIn = (name: string, userName: string, password: string) =>
    send(engine.url, { name, method: 'POST', path: '/auth/credentials', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName, password }) }, 60_000);
  const signIns = await Promise.all([
    ...winners.map((w) => signIn('winner', w.name, w.password)),
    ...losers.map((l) => signIn('loser', l.name, l.password)),
  ]);
  record(`registrationRace${label}`, `100 parallel registrations over 20 names (${label})`, {
    '200 / 409 / other': `${winners.length} / ${losers.length} / ${outcome.length - winners.length - losers.length}`,
    'users created': after - before,
    'all 100 answered in (s)': round(seconds, 2),
    'winners signing in with their password': `${signIns.filter((s) => s.name === 'winner' && s.status === 200).length} of ${winners.length}`,
    "losers' passwords refused": `${signIns.filter((s) => s.name === 'loser' && s.status === 401).length} of ${losers.length}`,
  });

  expect(outcome.filter((o) => o.status !== 200 && o.status !== 409).map((o) => [o.userName, o.status])).to.deep.equal([]);
  expect(after - before).to.equal(20);
  for (const n of names) expect(winners.filter((w) => w.name === n), n).to.have.length(1);
  expect(losers.every((l) => l.body.responseStatus?.errorCode === 'AlreadyExists' && l.body.responseStatus.errors[0]?.fieldName === 'UserName')).to.equal(true);
  expect(signIns.filter((s) => s.name === 'winner').map((s) => s.status)).to.deep.equal(winners.map(() => 200));
  expect(signIns.filter((s) => s.name === 'loser').map((s) => s.status)).to.deep.equal(losers.map(() => 401));
}

describe('reliability: 100 parallel registrations over 20 names', function () {
  this.timeout(300_000);

  it('on MariaDB: exactly 20 users, each able to sign in', async () => {
    const t: ReliabilityTarget = await startTarget('registration-race', { SCRYPT_LOG_N: '12' });
    try {
      await race({ url: t.service.url, db: t.db, close: async () => {} }, 'MariaDB');
    } finally {
      await t.close();
    }
  });

  it('on SQLite: exactly 20 users, each able to sign in', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-race-'));
    const file = path.join(dir, 'race.sqlite');
    let service: ServiceProcess | undefined;
    const db = connect({ sqliteFile: file });
    try {
      service = await startService({ SQLITE_FILE: file, SCRYPT_LOG_N: '12', RATE_LIMIT_REGISTER_PER_MIN: '0', RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '0' }, path.resolve('test-output/reliability-registration-race-sqlite.log'));
      await race({ url: service.url, db: db.knex, close: async () => {} }, 'SQLite');
    } finally {
      await service?.stop();
      await disconnect(db);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
