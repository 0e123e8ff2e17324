// The service the fuzzer attacks: the real built process (node dist/src/server/main.js) on a
// fresh database of the dialect, filled with the demo data and one user, plus the
// tokens the fuzzer sends (right ones, and ones every protected operation refuses).
import crypto from 'node:crypto';
import path from 'node:path';
import type { Dialect } from '../../../src/db/dialect.js';
import { seedDemo } from '../../../src/cli/demo-data.js';
import { jwtSecret, startService, type ServiceProcess } from '../../reliability/support/service-process.js';
import { claims, hmac, hs256, rsaKeys, rs256, tamper, unsigned } from '../../security/support/forge-token.js';
import { createTestDb, type TestDb } from '../../support/db.js';
import type { Tokens } from './draft.js';

export interface FuzzTarget {
  readonly db: TestDb;
  readonly service: ServiceProcess;
  readonly port: number;
  readonly tokens: Tokens;
  close(): Promise<void>;
}

export async function startFuzzTarget(dialect: Dialect, name: string): Promise<FuzzTarget> {
  const db = await createTestDb(dialect);
  await seedDemo(db.db);
  const env: Record<string, string> = {
    SCRYPT_LOG_N: '4', RATE_LIMIT_REGISTER_PER_MIN: '0', RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '0',
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : { SQLITE_FILE: db.sqliteFile! }),
  };
  const service = await startService(env, path.resolve(`test-output/${name}-${dialect}.log`));
  // One real user, so sign-in and role assignment reach the database; nobody knows its password.
  const registered = await fetch(`${service.url}/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: 'fuzzuser', password: crypto.randomBytes(24).toString('hex') }),
  });
  if (registered.status !== 200) throw new Error(`could not register the fuzz user: ${registered.status}`);
  return {
    db, service, port: Number(new URL(service.url).port), tokens: tokens(),
    async close() {
      await service.stop();
      await db.drop();
    },
  };
}

function tokens(): Tokens {
  const now = Math.floor(Date.now() / 1000);
  const admin = (over = {}) => claims(['Admin'], over, now);
  const apiUser = hs256(claims(['ApiUser'], {}, now), jwtSecret);
  return {
    admin: hs256(admin(), jwtSecret),
    apiUser,
    noRole: hs256(claims([], {}, now), jwtSecret),
    refused: [
      unsigned(admin()), unsigned(admin(), 'None'), unsigned(admin(), 'NONE'), unsigned(admin(), 'HS256'),
      hmac('HS512', admin(), jwtSecret), hmac('HS384', admin(), jwtSecret),
      hs256(admin(), 'another-secret-that-is-at-least-32-bytes'),
      hs256(admin({ exp: now - 3600 }), jwtSecret), hs256(admin({ nbf: now + 3600 }), jwtSecret),
      hs256(admin({ iss: 'evil' }), jwtSecret), hs256(admin({ aud: 'evil' }), jwtSecret), hs256(admin({ iss: undefined }), jwtSecret),
      hs256(admin({ exp: undefined }), jwtSecret), hs256(admin({ sub: 1 }), jwtSecret), hs256(admin({ roles: 'Admin' }), jwtSecret),
      tamper(apiUser, (c) => ({ ...c, roles: ['Admin'] })),
      rs256(admin(), rsaKeys().privateKey),
      'x.y.z', 'a', '...', 'eyJhbGciOiJub25lIn0', `${'A'.repeat(4000)}.${'B'.repeat(4000)}.C`,
    ],
  };
}
