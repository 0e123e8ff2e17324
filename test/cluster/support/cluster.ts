// A deployment of several machines, on this one: a private MariaDB primary with binary
// logging, a private replica replicating from it (MariaDB's own replication), and three
// nodes of the built service on fixed ports in front of both, as behind a balancer. The
// shared server on 3306 is never touched; every server here is started, stopped and
// removed by the test on ports of its own.
import path from 'node:path';
import { connect, disconnect } from '../../../src/db/connect.js';
import type { Database } from '../../../src/db/database.js';
import { migrate } from '../../../src/db/migrate.js';
import { seedDemo } from '../../../src/cli/demo-data.js';
import type { Knex } from '../../support/db.js';
import { freePort, PrivateMariaDb } from '../../reliability/support/private-mariadb.js';
import { startService, type ServiceProcess } from '../../reliability/support/service-process.js';
import { adminUser } from '../../reliability/support/reliability-target.js';

export interface Cluster {
  readonly primary: PrivateMariaDb;
  readonly replica: PrivateMariaDb;
  /** The test's own connections: to the primary's database, and to the replica's server. */
  readonly primaryDb: Knex;
  readonly replicaDb: Knex;
  /** The nodes as they are now (a restarted node is replaced here, on the same port). */
  readonly nodes: ServiceProcess[];
  readonly adminToken: string;
  readonly impiantoIds: readonly number[];
  /** SIGTERM node `i`, wait for its exit, start it again on its port and wait until it is ready. */
  restart(i: number): Promise<{ exitCode: number | null; downMs: number }>;
  close(): Promise<void>;
}

const database = 'impianti';

/** A server's global status counter (Com_select, ...). */
export async function status(db: Knex, name: string): Promise<number> {
  const [rows] = (await db.raw('SHOW GLOBAL STATUS LIKE ?', [name])) as [Array<{ Value: string }>];
  return Number(rows[0]?.Value ?? NaN);
}

async function waitFor(what: string, ok: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await ok().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Until `url`/ready answers 200. */
export const waitReady = (url: string, ms = 30_000): Promise<void> => waitFor(`${url}/ready`, async () => (await fetch(`${url}/ready`)).status === 200, ms);

export async function startCluster(env: Record<string, string>): Promise<Cluster> {
  const primary = await PrivateMariaDb.create(undefined, ['--server-id=1', '--log-bin=primary-bin', '--binlog-format=ROW']);
  const replica = await PrivateMariaDb.create(undefined, ['--server-id=2', '--relay-log=replica-relay']);
  const nodes: ServiceProcess[] = [];
  const pools: Database[] = [];
  const close = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await Promise.all(pools.map((p) => disconnect(p)));
    await replica.destroy();
    await primary.destroy();
  };
  try {
    await Promise.all([primary.start(), replica.start()]);
    // Its pooled connections die with the replica's server when the test stops it: said once, here.
    const replicaDb = connect({ databaseUrl: `${replica.url}/mysql`, poolMax: 2, log: { warn: () => {} } });
    pools.push(replicaDb);
    // From the first event of the primary's binary log: everything from CREATE DATABASE on.
    await replicaDb.knex.raw(`CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primary.port}, MASTER_USER='root', MASTER_PASSWORD='', MASTER_LOG_FILE='primary-bin.000001', MASTER_LOG_POS=4, MASTER_CONNECT_RETRY=1`);
    await replicaDb.knex.raw('START SLAVE');
    const server = connect({ databaseUrl: `${primary.url}/mysql`, poolMax: 1 });
    await server.knex.raw(`CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await disconnect(server);
    const primaryDb = connect({ databaseUrl: `${primary.url}/${database}`, poolMax: 4 });
    pools.push(primaryDb);
    await migrate(primaryDb);
    await seedDemo(primaryDb);
    const impiantoIds = ((await primaryDb.knex('impianto_file').distinct('impianto_id')) as Array<{ impianto_id: number }>).map((r) => Number(r.impianto_id));
    const rows = async (db: Knex, table: string) => Number(((await db.raw(`SELECT COUNT(*) AS n FROM ${database}.${table}`)) as [Array<{ n: number }>])[0][0]!.n);
    const expected = await rows(primaryDb.knex, 'soggetto_recapito');
    await waitFor('the replica has the seeded data', async () => (await rows(replicaDb.knex, 'soggetto_recapito')) === expected, 60_000);

    const nodeEnv = {
      DATABASE_URL: `${primary.url}/${database}`,
      DATABASE_REPLICA_URLS: `${replica.url}/${database}`,
      ADMIN_USERNAME: adminUser.userName,
      ADMIN_PASSWORD: adminUser.password,
      ACCESS_TOKEN_TTL: '1h',
      RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '0',
      ...env,
    };
    const ports = [await freePort(), await freePort(), await freePort()];
    const logOf = (i: number) => path.resolve(`test-output/cluster-node-${i + 1}.log`);
    for (let i = 0; i < ports.length; i++) nodes.push(await startService(nodeEnv, logOf(i), { port: ports[i] }));
    const signIn = await fetch(`${nodes[0]!.url}/auth/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(adminUser) });
    if (signIn.status !== 200) throw new Error(`admin sign-in failed: ${signIn.status} ${await signIn.text()}`);
    const adminToken = ((await signIn.json()) as { bearerToken: string }).bearerToken;

    return {
      primary, replica, primaryDb: primaryDb.knex, replicaDb: replicaDb.knex, nodes, adminToken, impiantoIds, close,
      async restart(i) {
        const stopped = performance.now();
        const exitCode = await nodes[i]!.stop();
        nodes[i] = await startService(nodeEnv, logOf(i), { port: ports[i], append: true });
        await waitReady(nodes[i]!.url);
        return { exitCode, downMs: performance.now() - stopped };
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** One sample line of a node's /metrics, e.g. `db_reads_total{target="primary"}`; 0 when absent. */
export async function metric(url: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const open = line.indexOf('{');
    const got = open < 0 ? {} : Object.fromEntries([...line.slice(open, line.indexOf('}')).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

/** The sum of a metric over every node. */
export async function total(nodes: readonly ServiceProcess[], name: string, labels: Record<string, string> = {}): Promise<number> {
  return (await Promise.all(nodes.map((n) => metric(n.url, name, labels)))).reduce((a, b) => a + b, 0);
}
