// The purge of dead refresh tokens and sessions (design.md §12), on both engines: of a
// seeded set it removes exactly the expired tokens, the tokens spent longer ago than the
// reuse window, the revoked sessions with their tokens and the sessions left without a
// token, in batches, and nothing else; a token that was valid still refreshes afterwards.
import { expect } from 'chai';
import { pino } from 'pino';
import { purgeBatch, purgeOnce, purgeTurn, reuseWindowMs, schedulePurge } from '../../src/auth/token-purge.js';
import { hashToken, refreshSession } from '../../src/auth/session-store.js';
import type { Dialect } from '../../src/db/dialect.js';
import { withNamedLock } from '../../src/db/named-lock.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { forEachDialect } from '../support/dialects.js';

const now = new Date(Date.UTC(2026, 10, 25, 12, 0, 0));
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);
const hour = 3600_000;

/** A token for a session: its raw text (43 characters, as the service mints them) is the name padded. */
const tokenText = (name: string) => name.padEnd(43, 'x');

forEachDialect('refresh token purge', (dialect: Dialect) => {
  let tdb: TestDb;
  beforeEach(async () => {
    tdb = await createTestDb(dialect);
    await tdb.knex('app_user').insert({ id: 1, user_name: 'anna', user_name_key: 'anna', password_hash: 'x', created_at: at(-48 * hour) });
  });
  afterEach(() => tdb.drop());

  const session = (id: string, createdAt: Date, revokedAt: Date | null = null) =>
    tdb.knex('auth_session').insert({ id, user_id: 1, created_at: createdAt, revoked_at: revokedAt });
  const token = (name: string, sessionId: string, expiresAt: Date, spentAt: Date | null = null) =>
    tdb.knex('refresh_token').insert({ token_hash: hashToken(tokenText(name)), session_id: sessionId, expires_at: expiresAt, spent_at: spentAt });
  const tokensLeft = async () => {
    const names = ['live', 'spentRecently', 'liveSuccessor', 'expired', 'spentLongAgo', 'ofRevoked', 'justExpired'];
    const hashes = new Map(names.map((n) => [hashToken(tokenText(n)), n]));
    return (await tdb.knex('refresh_token').select('token_hash')).map((r: { token_hash: string }) => hashes.get(r.token_hash) ?? r.token_hash).sort();
  };
  const sessionsLeft = async () => (await tdb.knex('auth_session').select('id')).map((r: { id: string }) => r.id).sort();

  async function seed(): Promise<void> {
    await session('active', at(-30 * hour));
    await token('live', 'active', at(+hour));
    await token('spentRecently', 'active', at(+hour), at(-reuseWindowMs + 60_000));
    await token('spentLongAgo', 'active', at(+hour), at(-reuseWindowMs - 60_000));
    await token('justExpired', 'active', now);
    await session('rotated', at(-30 * hour));
    await token('liveSuccessor', 'rotated', at(+24 * hour));
    await token('expired', 'rotated', at(-hour));
    await session('revoked', at(-2 * hour), at(-hour));
    await token('ofRevoked', 'revoked', at(+hour));
    await session('emptyOld', at(-2 * hour));
    await session('emptyYoung', at(-1000));
  }

  it('removes exactly the expired and spent tokens and the dead sessions, and nothing else', async () => {
    await seed();
    const purged = await purgeOnce(tdb.knex, now);
    expect(await tokensLeft()).to.deep.equal(['live', 'liveSuccessor', 'spentRecently']);
    expect(await sessionsLeft()).to.deep.equal(['active', 'emptyYoung', 'rotated']);
    expect(purged).to.deep.equal({ tokens: 4, sessions: 2 });
    expect(await purgeOnce(tdb.knex, now), 'a second purge finds nothing').to.deep.equal({ tokens: 0, sessions: 0 });
  });

  it('leaves every valid token usable: a refresh after the purge succeeds, a spent token kept in the window still revokes its session', async () => {
    await seed();
    await purgeOnce(tdb.knex, now);
    const noReuse = () => { throw new Error('no reuse expected'); };
    const rotation = await refreshSession(tdb.db, tokenText('live'), now, 3600, noReuse, 'rotate');
    expect(rotation.sessionId).to.equal('active');
    let reused: string | undefined;
    const replay = await refreshSession(tdb.db, tokenText('spentRecently'), now, 3600, (sessionId) => { reused = sessionId; }, 'rotate').then(() => 'accepted', (e: Error) => e.name);
    expect(replay).to.equal('ApiError');
    expect(reused, 'a spent token inside the reuse window still gives the theft away').to.equal('active');
  });

  it(`works in batches of ${purgeBatch}: a backlog larger than one batch goes in one purge`, async () => {
    await session('busy', at(-30 * hour));
    const rows = Array.from({ length: purgeBatch * 2 + 7 }, (_, i) => ({ token_hash: hashToken(`old-${i}`), session_id: 'busy', expires_at: at(-hour - i), spent_at: null }));
    for (let i = 0; i < rows.length; i += 200) await tdb.knex('refresh_token').insert(rows.slice(i, i + 200));
    await token('live', 'busy', at(+hour));
    expect(await purgeOnce(tdb.knex, now)).to.deep.equal({ tokens: rows.length, sessions: 0 });
    expect(await tokensLeft()).to.deep.equal(['live']);
  });

  it('on a schedule: each turn is counted, and stopping waits for the turn in progress', async () => {
    await seed();
    const schedule = schedulePurge({ db: tdb.db, clock: () => now, logger: pino({ level: 'silent' }), intervalS: 1 });
    const until = Date.now() + 5000;
    while (schedule.purged().tokens === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    await schedule.stop();
    expect(schedule.purged()).to.deep.equal({ tokens: 4, sessions: 2 });
  });

  if (dialect === 'mysql') {
    it('one node at a time: while another node holds the turn, this one skips it and deletes nothing', async () => {
      await seed();
      const skipped = await withNamedLock(tdb.db, 'impianti_api_purge', 0, () => purgeTurn(tdb.db, now));
      expect(skipped).to.deep.equal({ held: true, value: undefined });
      expect(await tokensLeft()).to.have.length(7);
      expect(await purgeTurn(tdb.db, now), 'with the lock free again, the turn is taken').to.deep.equal({ tokens: 4, sessions: 2 });
    });
  }
});
