// The read router (design.md §12) on MySQL, with a second database of the test server
// standing in for a replica behind a TCP relay the test can cut: reads go to the replica
// while it is healthy (a row only the replica has proves where an answer came from), move
// to the primary when it falls behind, cannot be reached or dies mid-read, and no read
// fails for it. Real replication, three nodes and a stopped replica server are in
// test/cluster.
import { expect } from 'chai';
import net from 'node:net';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { createReads, primaryOnly, type Reads } from '../../src/db/reads/replicas.js';
import { ApiError } from '../../src/errors/api-error.js';
import { createImpiantiHandlers } from '../../src/handlers/impianti-files.js';
import type { Request } from '../../src/http/operation.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { dialects, mysqlTestUrl } from '../support/dialects.js';

/** A relay to the test server that can be cut, as a replica's server going away would. */
async function relay(): Promise<{ port: number; cut(): Promise<void> }> {
  const target = new URL(mysqlTestUrl);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 3306), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut: () => new Promise((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const request = (impiantoId: number) => ({ dto: { impiantoId } }) as unknown as Request<'GetImpiantoFilesRequest'>;

// Declared only when the run covers MySQL (DIALECTS): it has no SQLite counterpart.
if (dialects.includes('mysql')) describe('read replicas [mysql]', function () {
  this.timeout(20_000);
  let primary: TestDb;
  let replica: TestDb;
  let beating: NodeJS.Timeout | undefined;
  const maxLagMs = 400;
  before(async () => {
    primary = await createTestDb('mysql');
    replica = await createTestDb('mysql');
    // Impianto 7 exists only on the "replica": a 200 for it was answered there, a 404 by the primary.
    await replica.knex('impianto').insert({ id: 7, nome: 'solo sulla replica' });
  });
  after(async () => {
    clearInterval(beating);
    await primary?.drop();
    await replica?.drop();
  });
  /** Replication of the heartbeat, by hand: the stand-in replica is as fresh as this makes it. */
  const replicate = (on: boolean) => {
    clearInterval(beating);
    beating = on ? setInterval(() => void replica.knex.raw('UPDATE replica_heartbeat SET beat = UTC_TIMESTAMP(6) WHERE id = 1').catch(() => {}), 50) : undefined;
  };
  const router = (urls: string[]): Reads => createReads(primary.db, { replicaUrls: urls, maxLagMs, statementTimeoutMs: 5000, logger: pino({ level: 'silent' }) });
  const answeredBy = async (reads: Reads): Promise<'replica' | 'primary'> => {
    const handler = createImpiantiHandlers({ reads, config: loadConfig({}) }).GetImpiantoFilesRequest;
    return handler(request(7)).then(() => 'replica' as const, (e: unknown) => {
      if (e instanceof ApiError && e.status === 404) return 'primary' as const;
      throw e;
    });
  };
  const until = async (what: () => boolean, ms = 5000) => {
    const end = Date.now() + ms;
    while (!what()) {
      if (Date.now() > end) throw new Error('condition not met in time');
      await sleep(20);
    }
  };
  /** A router whose one replica, kept fresh, is reached through a relay the test can cut; resolves once it is healthy. */
  const healthyBehindRelay = async () => {
    replicate(true);
    const link = await relay();
    const reads = router([`mysql://root@127.0.0.1:${link.port}${new URL(replica.databaseUrl!).pathname}`]);
    await until(() => reads.health()[0]!.healthy);
    return { link, reads };
  };

  it('sends reads to a healthy replica and counts them there', async () => {
    const { link, reads } = await healthyBehindRelay();
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => answeredBy(reads)));
      expect(answers.every((a) => a === 'replica')).to.equal(true);
      expect(reads.health()[0]).to.include({ name: `127.0.0.1:${link.port}`, healthy: true, reads: 20 });
      expect(reads.health()[0]!.lagMs).to.be.below(maxLagMs);
      expect(reads.primaryReads()).to.equal(0);
    } finally {
      await reads.close();
      await link.cut();
    }
  });

  it('reads the table versions where it reads the rows: the replica\'s tag is the replica\'s, and moves with its writes', async () => {
    replicate(true);
    const reads = router([replica.databaseUrl!]);
    const tagOf = async (via: Reads) => (await createImpiantiHandlers({ reads: via, config: loadConfig({}) }).GetImpiantoFilesRequest(request(7))).headers?.['ETag'];
    try {
      await until(() => reads.health()[0]!.healthy);
      const onReplica = await tagOf(reads);
      expect(onReplica).to.be.a('string').and.to.equal(await tagOf(primaryOnly(replica.db)));
      // A write the primary never saw, as replication would bring it: only the replica's version moves.
      await replica.knex('impianto').where({ id: 7 }).update({ nome: 'rinominato' });
      const moved = await tagOf(reads);
      expect(moved).to.not.equal(onReplica);
      expect(moved).to.equal(await tagOf(primaryOnly(replica.db)));
    } finally {
      await reads.close();
    }
  });

  it('skips a replica further behind than REPLICA_MAX_LAG_MS, and takes it back once it catches up', async () => {
    replicate(true);
    const reads = router([replica.databaseUrl!]);
    try {
      await until(() => reads.health()[0]!.healthy);
      replicate(false);
      await until(() => !reads.health()[0]!.healthy);
      expect(reads.health()[0]!.lagMs).to.be.above(maxLagMs);
      expect(await answeredBy(reads)).to.equal('primary');
      replicate(true);
      await until(() => reads.health()[0]!.healthy);
      expect(await answeredBy(reads)).to.equal('replica');
    } finally {
      await reads.close();
    }
  });

  it('reads from the primary when the replica cannot be reached, with no failed read', async () => {
    const reads = router(['mysql://root@127.0.0.1:1/nowhere']);
    try {
      await sleep(300);
      const answers = await Promise.all(Array.from({ length: 10 }, () => answeredBy(reads)));
      expect(answers.every((a) => a === 'primary')).to.equal(true);
      expect(reads.health()[0]).to.include({ healthy: false, lagMs: undefined, reads: 0 });
      expect(reads.primaryReads()).to.equal(10);
    } finally {
      await reads.close();
    }
  });

  it('retries on the primary a read whose replica dies under it, and skips the replica from then on', async () => {
    const { link, reads } = await healthyBehindRelay();
    try {
      expect(await answeredBy(reads)).to.equal('replica');
      // The replica's pooled connections break and new ones are refused, between two reads.
      await link.cut();
      const answers = await Promise.all(Array.from({ length: 10 }, () => answeredBy(reads)));
      expect(answers.every((a) => a === 'primary'), 'every read answered, by the primary').to.equal(true);
      expect(reads.health()[0]!.healthy).to.equal(false);
    } finally {
      await reads.close();
    }
  });
});
