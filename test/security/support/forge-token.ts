// Builds JWTs by hand, byte for byte, so attacks do not depend on what a JWT library is
// willing to sign: `alg: none`, an HMAC keyed with the RSA public key (HS/RS confusion),
// a payload edited after signing, claims the service must refuse.
import crypto, { type KeyObject } from 'node:crypto';

const b64 = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

export type Claims = Record<string, unknown>;

/** Claims the service accepts (iss/aud defaults), for `sub` with `roles`, valid for 15 minutes. */
export function claims(roles: readonly string[], overrides: Claims = {}, now = Math.floor(Date.now() / 1000)): Claims {
  return { sub: '1', sid: 'fuzz-session', roles: [...roles], iat: now, exp: now + 900, iss: 'impianti-api', aud: 'impianti-api', ...overrides };
}

export function hs256(payload: Claims, secret: string | Buffer, header: Claims = {}): string {
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT', ...header })}.${b64(payload)}`;
  return `${unsigned}.${crypto.createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

export function hmac(alg: 'HS256' | 'HS384' | 'HS512', payload: Claims, secret: string | Buffer): string {
  const unsigned = `${b64({ alg, typ: 'JWT' })}.${b64(payload)}`;
  return `${unsigned}.${crypto.createHmac(`sha${alg.slice(2)}`, secret).update(unsigned).digest('base64url')}`;
}

export function rs256(payload: Claims, privateKey: KeyObject, header: Claims = {}): string {
  const unsigned = `${b64({ alg: 'RS256', typ: 'JWT', ...header })}.${b64(payload)}`;
  return `${unsigned}.${crypto.sign('sha256', Buffer.from(unsigned), privateKey).toString('base64url')}`;
}

/** `alg: none` with an empty signature, in the spellings libraries have accepted. */
export function unsigned(payload: Claims, alg = 'none'): string {
  return `${b64({ alg, typ: 'JWT' })}.${b64(payload)}.`;
}

/** Replaces the payload of a signed token and keeps its signature. */
export function tamper(token: string, edit: (c: Claims) => Claims): string {
  const [h, p, s] = token.split('.');
  const payload = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Claims;
  return `${h}.${b64(edit(payload))}.${s}`;
}

export function rsaKeys(): { privateKey: KeyObject; publicKey: KeyObject; publicPem: string; privatePem: string } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey,
    publicKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
