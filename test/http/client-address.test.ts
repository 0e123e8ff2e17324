// The client's address, which keys the account rate limits: the socket's peer, or behind
// TRUST_PROXY the address the trusted proxies forwarded (X-Forwarded-For), read as
// express's `trust proxy` reads it. The operations are served without express, so this
// proves the edge still resolves it the same way.
import { expect } from 'chai';
import type { Dialect } from '../../src/db/dialect.js';
import { freshWindowClock } from '../support/clock.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer } from '../support/server.js';

/** Statuses of registrations sent with the given X-Forwarded-For values (undefined: none), one after the other. */
async function register(env: Record<string, string>, dialect: Dialect, forwardedFor: readonly (string | undefined)[]): Promise<number[]> {
  const s = await startServer({ dialect, env: { RATE_LIMIT_REGISTER_PER_MIN: '1', ...env }, clock: freshWindowClock() });
  try {
    const statuses: number[] = [];
    for (const [i, xff] of forwardedFor.entries()) {
      const r = await s.request('POST', '/register', { json: { userName: `addr${i}x`, password: 'correct-horse' }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } });
      statuses.push(r.status);
    }
    return statuses;
  } finally {
    await s.close();
  }
}

forEachDialect('client address behind proxies (TRUST_PROXY)', (dialect) => {
  it('without TRUST_PROXY, ignores X-Forwarded-For: every client on this socket shares one limit', async () => {
    expect(await register({}, dialect, ['203.0.113.1', '203.0.113.2'])).to.deep.equal([200, 429]);
  });

  it('with TRUST_PROXY=true, keys the limit on the forwarded client', async () => {
    expect(await register({ TRUST_PROXY: 'true' }, dialect, ['203.0.113.1', '203.0.113.2', '203.0.113.1'])).to.deep.equal([200, 200, 429]);
  });

  it('with a trusted subnet, believes the hops inside it and stops at the first one outside', async () => {
    // 127.0.0.1 (the test client) is trusted; 198.51.100.7 is not, so it is the client
    // whatever it claims came before it.
    expect(await register({ TRUST_PROXY: 'loopback' }, dialect, ['203.0.113.1, 198.51.100.7', '203.0.113.2, 198.51.100.7'])).to.deep.equal([200, 429]);
    expect(await register({ TRUST_PROXY: '127.0.0.1/8' }, dialect, ['203.0.113.1', '203.0.113.2'])).to.deep.equal([200, 200]);
  });

  it('with a hop count, trusts that many proxies from the socket inwards', async () => {
    // One hop trusted: the last forwarded address is the client.
    expect(await register({ TRUST_PROXY: '1' }, dialect, ['10.0.0.1, 203.0.113.1', '10.0.0.2, 203.0.113.1', '10.0.0.1, 203.0.113.2'])).to.deep.equal([200, 429, 200]);
  });

  it('names the forwarded scheme in the served contract only behind a trusted proxy', async () => {
    for (const [env, scheme] of [[{}, 'http'], [{ TRUST_PROXY: 'loopback' }, 'https']] as const) {
      const s = await startServer({ dialect, env });
      try {
        const r = await s.request('GET', '/openapi.json', { headers: { 'x-forwarded-proto': 'https' } });
        expect(r.body.servers[0].url, JSON.stringify(env)).to.equal(`${scheme}://${new URL(s.baseUrl).host}`);
      } finally {
        await s.close();
      }
    }
  });

  it('with TRUST_PROXY=false, behaves as without it', async () => {
    expect(await register({ TRUST_PROXY: 'false' }, dialect, ['203.0.113.1', '203.0.113.2'])).to.deep.equal([200, 429]);
  });
});
