// Forged and doctored access tokens (issue 7): `alg: none`, algorithms other than the
// pinned one, a payload edited after signing, expiry, issuer, audience and claim shape.
// Every one is a 401 with WWW-Authenticate: Bearer, on an Admin-only operation that a
// good token of the same claims opens.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { clockToleranceSeconds } from '../../src/auth/access-tokens.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';
import { claims, hmac, hs256, rsaKeys, rs256, tamper, unsigned, type Claims } from './support/forge-token.js';

const adminOnly = '/json/reply/SoggettoRecapitoQuery';

forEachDialect('security: forged access tokens', (dialect) => {
  let s: TestServer;
  let secret: string;
  before(async () => {
    s = await startServer({ dialect });
    secret = s.config.jwt.secret!;
  });
  after(() => s.close());

  const now = () => Math.floor(Date.now() / 1000);
  const admin = (over: Claims = {}) => claims(['Admin'], over, now());
  const expectRefused = async (token: string, why: string) => {
    const r = await s.request('GET', adminOnly, { token });
    expect([r.status, r.headers.get('www-authenticate'), r.body?.responseStatus?.errorCode], why).to.deep.equal([401, 'Bearer', 'Unauthorized']);
  };

  it('opens the operation with a correctly signed Admin token (the control)', async () => {
    expect((await s.request('GET', adminOnly, { token: hs256(admin(), secret) })).status).to.equal(200);
  });

  it('refuses alg none in every spelling, and an HS256 header with no signature', async () => {
    for (const alg of ['none', 'None', 'NONE', 'nOnE']) await expectRefused(unsigned(admin(), alg), alg);
    await expectRefused(unsigned(admin(), 'HS256'), 'empty signature');
  });

  it('refuses other HMAC algorithms even with the right secret (the algorithm is pinned)', async () => {
    await expectRefused(hmac('HS384', admin(), secret), 'HS384');
    await expectRefused(hmac('HS512', admin(), secret), 'HS512');
  });

  it('refuses an RS256 token on an HS256 service, and a wrong HMAC secret', async () => {
    await expectRefused(rs256(admin(), rsaKeys().privateKey), 'RS256');
    await expectRefused(hs256(admin(), 'a-different-secret-of-at-least-32-bytes'), 'wrong secret');
  });

  it('refuses a payload edited after signing', async () => {
    const user = hs256(claims(['ApiUser'], {}, now()), secret);
    await expectRefused(tamper(user, (c) => ({ ...c, roles: ['Admin'] })), 'roles');
    await expectRefused(tamper(hs256(admin(), secret), (c) => ({ ...c, sub: '2' })), 'sub');
    await expectRefused(tamper(hs256(admin({ exp: now() - 3600 }), secret), (c) => ({ ...c, exp: now() + 3600 })), 'exp');
  });

  it(`refuses tokens expired for more than the ${clockToleranceSeconds} s skew, and not-yet-valid ones`, async () => {
    await expectRefused(hs256(admin({ exp: now() - clockToleranceSeconds - 2 }), secret), 'expired');
    await expectRefused(hs256(admin({ nbf: now() + 3600 }), secret), 'nbf');
    expect((await s.request('GET', adminOnly, { token: hs256(admin({ exp: now() - 5 }), secret) })).status, 'within skew').to.equal(200);
  });

  it('refuses a wrong or missing issuer or audience', async () => {
    await expectRefused(hs256(admin({ iss: 'someone-else' }), secret), 'iss');
    await expectRefused(hs256(admin({ aud: 'someone-else' }), secret), 'aud');
    await expectRefused(hs256(admin({ iss: undefined }), secret), 'no iss');
    await expectRefused(hs256(admin({ aud: undefined }), secret), 'no aud');
  });

  it('refuses correctly signed tokens whose claims are malformed', async () => {
    await expectRefused(hs256(admin({ exp: undefined }), secret), 'no exp');
    await expectRefused(hs256(admin({ sub: 1 }), secret), 'numeric sub');
    await expectRefused(hs256(admin({ sid: undefined }), secret), 'no sid');
    await expectRefused(hs256(admin({ roles: 'Admin' }), secret), 'roles as a string');
    await expectRefused(hs256(admin({ roles: [['Admin']] }), secret), 'nested roles');
  });

  it('refuses garbage in the Authorization header', async () => {
    for (const token of ['x.y.z', 'a', '..', 'eyJhbGciOiJub25lIn0', `${'A'.repeat(5000)}.${'B'.repeat(5000)}.C`]) await expectRefused(token, token.slice(0, 20));
    const basic = await s.request('GET', adminOnly, { headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } });
    expect(basic.status).to.equal(401);
  });
});

forEachDialect('security: HS/RS algorithm confusion', (dialect) => {
  let s: TestServer;
  const keys = rsaKeys();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'impianti-rsa-'));
  before(async () => {
    fs.writeFileSync(path.join(dir, 'private.pem'), keys.privatePem);
    fs.writeFileSync(path.join(dir, 'public.pem'), keys.publicPem);
    s = await startServer({ dialect, env: { JWT_ALGORITHM: 'RS256', JWT_PRIVATE_KEY_FILE: path.join(dir, 'private.pem'), JWT_PUBLIC_KEY_FILE: path.join(dir, 'public.pem') } });
  });
  after(async () => {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const admin = () => claims(['Admin'], {}, Math.floor(Date.now() / 1000));

  it('accepts an RS256 token signed with the private key (the control)', async () => {
    expect((await s.request('GET', adminOnly, { token: rs256(admin(), keys.privateKey) })).status).to.equal(200);
  });

  it('refuses an HS256 token whose HMAC key is the public key (PEM text or DER bytes)', async () => {
    const der = keys.publicKey.export({ type: 'spki', format: 'der' });
    for (const key of [keys.publicPem, keys.publicPem.trim(), der]) {
      const r = await s.request('GET', adminOnly, { token: hs256(admin(), key) });
      expect([r.status, r.headers.get('www-authenticate')]).to.deep.equal([401, 'Bearer']);
    }
  });

  it('refuses a token signed with another RSA key, even when its header carries that key', async () => {
    const other = rsaKeys();
    const jwk = other.publicKey.export({ format: 'jwk' });
    for (const header of [{}, { jwk }, { jku: 'http://127.0.0.1:1/keys.json' }, { kid: '../../../dev/null' }]) {
      expect((await s.request('GET', adminOnly, { token: rs256(admin(), other.privateKey, header) })).status).to.equal(401);
    }
  });
});
