// Access tokens: claims, pinned algorithms, iss/aud checks and the 30 s skew, on a moved clock.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { createAccessTokens, type AccessTokens } from '../../src/auth/access-tokens.js';
import { loadConfig } from '../../src/config.js';

const secret = 'unit-test-secret-of-at-least-32-bytes!!';
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const claims = { userId: '7', sessionId: 's-1', userName: 'mario', roles: ['ApiUser'] };

function keyFiles(type: 'rsa' | 'ec') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jwt-keys-'));
  const pair = type === 'rsa' ? crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }) : crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const priv = path.join(dir, 'private.pem');
  const pub = path.join(dir, 'public.pem');
  fs.writeFileSync(priv, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  fs.writeFileSync(pub, pair.publicKey.export({ type: 'spki', format: 'pem' }));
  return { priv, pub };
}

function expectRejected(tokens: AccessTokens, token: string) {
  const r = tokens.verify(token);
  expect(r.ok).to.equal(false);
  if (!r.ok) {
    expect(r.error.status).to.equal(401);
    expect(r.error.headers).to.deep.equal({ 'WWW-Authenticate': 'Bearer' });
  }
}

describe('auth access tokens', () => {
  let now = Date.parse('2026-03-01T12:00:00.000Z');
  const clock = () => new Date(now);
  const hs = () => createAccessTokens(loadConfig({ JWT_SECRET: secret }), clock);

  it('carries sub, sid, roles, iat, exp, iss and aud and verifies back to the principal', () => {
    const tokens = hs();
    const token = tokens.issue(claims);
    const payload = jwt.decode(token) as Record<string, unknown>;
    expect(payload).to.include({ sub: '7', sid: 's-1', iss: 'impianti-api', aud: 'impianti-api', iat: now / 1000, exp: now / 1000 + 900 });
    expect(payload['roles']).to.deep.equal(['ApiUser']);
    const r = tokens.verify(token);
    expect(r.ok && r.value).to.deep.equal({ userId: '7', sessionId: 's-1', userName: 'mario', roles: ['ApiUser'] });
  });

  it('rejects a tampered payload', () => {
    const [h, , s] = hs().issue(claims).split('.');
    expectRejected(hs(), `${h}.${b64({ sub: '7', sid: 's-1', roles: ['Admin'], iss: 'impianti-api', aud: 'impianti-api', exp: now / 1000 + 900 })}.${s}`);
  });

  it('rejects alg none, signed or not', () => {
    const body = b64({ sub: '7', sid: 's', roles: ['Admin'], iss: 'impianti-api', aud: 'impianti-api', exp: now / 1000 + 900 });
    expectRejected(hs(), `${b64({ alg: 'none', typ: 'JWT' })}.${body}.`);
    expectRejected(hs(), `${b64({ alg: 'none', typ: 'JWT' })}.${body}`);
  });

  it('rejects an HS256 token signed with the RS256 public key (algorithm confusion)', () => {
    const { priv, pub } = keyFiles('rsa');
    const rs = createAccessTokens(loadConfig({ JWT_ALGORITHM: 'RS256', JWT_PRIVATE_KEY_FILE: priv, JWT_PUBLIC_KEY_FILE: pub }), clock);
    expect(rs.verify(rs.issue(claims)).ok).to.equal(true);
    const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: '7', sid: 's', roles: ['Admin'], iss: 'impianti-api', aud: 'impianti-api', exp: now / 1000 + 900 })}`;
    const sig = crypto.createHmac('sha256', fs.readFileSync(pub)).update(head).digest('base64url');
    expectRejected(rs, `${head}.${sig}`);
  });

  it('rejects an RS256 token where HS256 is configured', () => {
    const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = jwt.sign({ sub: '7', sid: 's', roles: [] }, privateKey, { algorithm: 'RS256', issuer: 'impianti-api', audience: 'impianti-api', expiresIn: 900 });
    expectRejected(hs(), token);
  });

  it('signs and verifies ES256 with key files', () => {
    const { priv, pub } = keyFiles('ec');
    const es = createAccessTokens(loadConfig({ JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY_FILE: priv, JWT_PUBLIC_KEY_FILE: pub }), clock);
    const token = es.issue(claims);
    expect((jwt.decode(token, { complete: true }) as jwt.Jwt).header.alg).to.equal('ES256');
    expect(es.verify(token).ok).to.equal(true);
  });

  it('accepts 30 s of skew past exp and rejects beyond it', () => {
    const tokens = hs();
    const token = tokens.issue(claims);
    const issued = now;
    now = issued + (900 + 29) * 1000;
    expect(tokens.verify(token).ok).to.equal(true);
    now = issued + (900 + 31) * 1000;
    expectRejected(tokens, token);
    now = issued;
  });

  it('rejects a wrong issuer or audience', () => {
    expectRejected(hs(), createAccessTokens(loadConfig({ JWT_SECRET: secret, JWT_ISSUER: 'someone-else' }), clock).issue(claims));
    expectRejected(hs(), createAccessTokens(loadConfig({ JWT_SECRET: secret, JWT_AUDIENCE: 'other-api' }), clock).issue(claims));
  });

  it('rejects a token signed with another secret, one without exp, and garbage', () => {
    expectRejected(hs(), createAccessTokens(loadConfig({ JWT_SECRET: 'x'.repeat(40) }), clock).issue(claims));
    expectRejected(hs(), jwt.sign({ sub: '7', sid: 's', roles: [], iat: now / 1000 }, secret, { algorithm: 'HS256', issuer: 'impianti-api', audience: 'impianti-api' }));
    expectRejected(hs(), 'not.a.token');
    expectRejected(hs(), '');
  });
});
