// The in-memory limiter: fixed one-minute windows on the injected clock; 0 turns it off.
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
    expect(refused).to.deep.equal({ allowed: false, retryAfterSeconds: 40 });
    expect((await limiter.hit('b')).allowed).to.equal(true);
    now += 40_000;
    expect((await limiter.hit('a')).allowed).to.equal(true);
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
