// The in-memory limiter: one-minute windows aligned on the injected clock; 0 turns it off.
import { expect } from 'chai';
import { createMemoryRateLimiter } from '../../src/auth/rate-limiter.js';

describe('auth rate limiter', () => {
  let now = Date.parse('2026-01-01T00:00:00.000Z');
  const clock = () => new Date(now);

  it('allows `limit` hits a window per key, then says when to retry', async () => {
    const limiter = createMemoryRateLimiter(3, clock);
    for (let i = 0; i < 3; i++) expect((await limiter.hit('a')).allowed).to.equal(true);
    now += 20_000;
    const refused = await limiter.hit('a');
    expect(refused).to.deep.equal({ allowed: false, retryAfterSeconds: 40, limit: 3, remaining: 0, resetSeconds: 40 });
    expect((await limiter.hit('b')).allowed).to.equal(true);
    now += 40_000;
    expect((await limiter.hit('a')).allowed).to.equal(true);
  });

  it('windows are aligned on the clock, as on MySQL: a key first seen late in a minute gets the rest of it', async () => {
    const limiter = createMemoryRateLimiter(2, clock);
    now = Date.parse('2026-01-01T00:10:45.000Z');
    expect(await limiter.hit('late')).to.deep.equal({ allowed: true, retryAfterSeconds: 0, limit: 2, remaining: 1, resetSeconds: 15 });
    expect(await limiter.check('late')).to.deep.equal({ allowed: true, retryAfterSeconds: 0, limit: 2, remaining: 1, resetSeconds: 15 });
    now += 15_000;
    expect(await limiter.hit('late')).to.deep.equal({ allowed: true, retryAfterSeconds: 0, limit: 2, remaining: 1, resetSeconds: 60 });
  });

  it('check() looks without counting', async () => {
    const limiter = createMemoryRateLimiter(2, clock);
    expect((await limiter.check('k')).allowed).to.equal(true);
    await limiter.hit('k');
    expect((await limiter.check('k')).allowed).to.equal(true);
    await limiter.hit('k');
    const blocked = await limiter.check('k');
    expect(blocked.allowed).to.equal(false);
    expect(blocked.retryAfterSeconds).to.be.within(1, 60);
  });

  it('a limit of 0 never refuses', async () => {
    const limiter = createMemoryRateLimiter(0, clock);
    for (let i = 0; i < 100; i++) expect((await limiter.hit('x')).allowed).to.equal(true);
  });
});
