// What every load and fault test starts from: a private MariaDB holding the demo data,
// the built service in front of it, and an Admin's bearer token got by signing in.
import path from 'node:path';
import { connect, disconnect } from '../../../src/db/connect.js';
import type { Database } from '../../../src/db/database.js';
import { migrate } from '../../../src/db/migrate.js';
import { seedDemo } from '../../../src/cli/demo-data.js';
import type { Knex } from '../../support/db.js';
import { PrivateMariaDb } from './private-mariadb.js';
import { startService, type ServiceProcess } from './service-process.js';

export const adminUser = { userName: 'admin', password: 'admin-password-for-tests' };

export interface ReliabilityTarget {
  readonly mariadb: PrivateMariaDb;
  readonly service: ServiceProcess;
  /** A connection of the test's own to the service's database, for inspection and locks. */
  readonly db: Knex;
  readonly adminToken: string;
  /** Ids of the demo impianti, every one with files. */
  readonly impiantoIds: readonly number[];
  close(): Promise<void>;
}

export async function startTarget(name: string, env: Record<string, string> = {}): Promise<ReliabilityTarget> {
  const mariadb = await PrivateMariaDb.create();
  let db: Database | undefined;
  let service: ServiceProcess | undefined;
  try {
    await mariadb.start();
    const server = connect({ databaseUrl: `${mariadb.url}/mysql`, poolMax: 1 });
    await server.knex.raw('CREATE DATABASE impianti CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    await disconnect(server);
    db = connect({ databaseUrl: `${mariadb.url}/impianti`, poolMax: 2 });
    await migrate(db);
    await seedDemo(db);
    const impiantoIds = ((await db.knex('impianto_file').distinct('impianto_id')) as Array<{ impianto_id: number }>).map((r) => Number(r.impianto_id));
    service = await startService({
      DATABASE_URL: `${mariadb.url}/impianti`,
      ADMIN_USERNAME: adminUser.userName,
      ADMIN_PASSWORD: adminUser.password,
      ACCESS_TOKEN_TTL: '1h',
      RATE_LIMIT_REGISTER_PER_MIN: '0',
      RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '0',
      ...env,
    }, path.resolve(`test-output/reliability-${name}.log`));
    const signIn = await fetch(`${service.url}/auth/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(adminUser) });
    if (signIn.status !== 200) throw new Error(`admin sign-in failed: ${signIn.status} ${await signIn.text()}`);
    const adminToken = ((await signIn.json()) as { bearerToken: string }).bearerToken;
    const [own, started] = [db, service];
    return {
      mariadb, service: started, db: own.knex, adminToken, impiantoIds,
      async close() {
        await started.stop();
        await disconnect(own);
        await mariadb.destroy();
      },
    };
  } catch (err) {
    // Half-started: leave no service, pool or private server behind.
    await service?.stop();
    if (db) await disconnect(db);
    await mariadb.destroy();
    throw err;
  }
}
