// Past one machine (design.md §12), on real servers: three nodes of the built service on a
// private MariaDB primary and a replica replicating from it. Rate limits hold for the whole
// deployment, reads go to the replica and leave it when it stops or falls behind, sessions
// move between nodes, a rolling restart loses nothing, the purge removes exactly what is
// dead, and a write reaches the live answers of every node. Figures: test-output/cluster.json.
import { expect } from 'chai';
import path from 'node:path';
import { hashToken } from '../../src/auth/session-store.js';
import { reuseWindowMs } from '../../src/auth/token-purge.js';
import { recordIn, percentile, round } from '../reliability/support/figures.js';
import { adminUser } from '../reliability/support/reliability-target.js';
import { mixedRequests, send, sleep, type Req, type Sample } from '../reliability/support/traffic.js';
import { metric, startCluster, status, total, type Cluster } from './support/cluster.js';

const figuresFile = path.resolve('test-output/cluster.json');
const record = (section: string, title: string, figures: Record<string, string | number | boolean>) => recordIn(figuresFile, section, title, figures);
const registerLimit = 5;
const maxLagMs = 1000;
const liveIntervalMs = 200;

async function waitUntil(done: () => boolean, ms: number, what: string): Promise<void> {
  for (const until = Date.now() + ms; !done(); await sleep(20)) if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
}

/** A live answer (design.md §7): the data of each event as it comes. */
function liveStream(url: string, token: string): { data: string[]; close(): void } {
  const data: string[] = [];
  const aborter = new AbortController();
  void (async () => {
    try {
      const res = await fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` }, signal: aborter.signal });
      let buffer = '';
      for await (const chunk of res.body!) {
        buffer += Buffer.from(chunk as Uint8Array).toString('utf8');
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const line = buffer.slice(0, at).split('\n').find((l) => l.startsWith('data: '));
          if (line) data.push(line.slice(6));
          buffer = buffer.slice(at + 2);
        }
      }
    } catch {
      // closed by the test
    }
  })();
  return { data, close: () => aborter.abort() };
}

/** Reads only: the traffic that goes to replicas. */
function reads(c: Cluster): Array<() => Req> {
  // query-post, query-get, files, query-csv, query-jsonp (traffic.ts).
  return mixedRequests(c.adminToken, c.impiantoIds).slice(0, 5);
}

/**
 * `concurrency` client loops over the nodes, as a balancer spreads them: request k goes to
 * node k mod 3, and a refused connection (a node that is not listening) is sent to the next
 * node, as a balancer retries it. Every other transport error counts as a lost request.
 */
async function balanced(c: Cluster, requests: Array<() => Req>, concurrency: number, stop: () => boolean): Promise<Array<Sample & { retried: number }>> {
  const samples: Array<Sample & { retried: number }> = [];
  let k = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (!stop()) {
      const req = requests[k % requests.length]!();
      const first = k++ % c.nodes.length;
      let s: Sample;
      let retried = 0;
      for (;;) {
        s = await send(c.nodes[(first + retried) % c.nodes.length]!.url, req);
        if (s.error !== 'ECONNREFUSED' || retried === c.nodes.length - 1) break;
        retried++;
      }
      samples.push({ ...s, retried });
    }
  }));
  return samples;
}

const failedOf = (samples: readonly Sample[]) => samples.filter((s) => s.error !== undefined || (s.status !== undefined && s.status >= 400));

describe('cluster: three nodes on a MariaDB primary and a replica', function () {
  this.timeout(600_000);
  let c: Cluster;
  before(async () => {
    c = await startCluster({
      RATE_LIMIT_REGISTER_PER_MIN: String(registerLimit),
      // Only the test of that limit fails a sign-in.
      RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '10',
      REPLICA_MAX_LAG_MS: String(maxLagMs),
      PURGE_INTERVAL_S: '2',
      // Sign-ins hash with scrypt; production cost on three nodes sharing two cores would make
      // the rolling restart a test of hashing speed.
      SCRYPT_LOG_N: '10',
      LIVE_INTERVAL_MS: String(liveIntervalMs),
    });
  });
  after(async () => c?.close());

  it('holds the register limit for the deployment, and across a node restart', async () => {
    // The limit counts per clock minute: start early in one, so the test stays inside it.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 30_000) await sleep(60_000 - intoMinute + 200);
    const register = (node: number, n: number) => fetch(`${c.nodes[node]!.url}/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: `limit-${process.pid}-${n}`, password: 'cluster-password' }),
    });
    const statuses: number[] = [];
    // The RateLimit fields of each answer (design.md §4): one count, whichever node answers.
    const fields: Array<[string | null, string | null]> = [];
    const counted = (r: Response) => (fields.push([r.headers.get('ratelimit-policy'), r.headers.get('ratelimit')]), r);
    for (let n = 0; n < registerLimit; n++) statuses.push(counted(await register(n % 3, n)).status);
    const over = counted(await register(registerLimit % 3, registerLimit));
    const restart = await c.restart(0);
    const afterRestart = counted(await register(0, registerLimit + 1));
    record('register-limit', 'Register limit across three nodes', {
      'limit per minute (RATE_LIMIT_REGISTER_PER_MIN)': registerLimit,
      'attempts accepted, spread over the nodes': statuses.filter((s) => s === 200).length,
      'next attempt': over.status,
      'Retry-After (s)': over.headers.get('retry-after') ?? '',
      'after restarting node 1': afterRestart.status,
      'RateLimit of each answer': fields.map(([, f]) => f).join(' | '),
      'node 1 restart, SIGTERM to ready (ms)': round(restart.downMs),
    });
    expect(statuses).to.deep.equal(Array(registerLimit).fill(200));
    expect(over.status).to.equal(429);
    expect(Number(over.headers.get('retry-after'))).to.be.within(1, 60);
    expect(afterRestart.status, 'a restarted node keeps the count').to.equal(429);
    expect(restart.exitCode).to.equal(0);
    expect(fields.map(([policy]) => policy)).to.deep.equal(Array(registerLimit + 2).fill(`"register";q=${registerLimit};w=60`));
    const remaining = fields.map(([, f]) => Number(/;r=(\d+);/.exec(f ?? '')?.[1]));
    expect(remaining).to.deep.equal([...Array.from({ length: registerLimit }, (_, i) => registerLimit - 1 - i), 0, 0]);
    expect(/;t=(\d+)$/.exec(fields[registerLimit]![1] ?? '')?.[1], 'the 429 says when, twice').to.equal(over.headers.get('retry-after'));
  });

  it('counts failed sign-ins for the deployment: each node answers what is left of one count', async () => {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await sleep(60_000 - intoMinute + 200);
    const answers = [];
    for (let node = 0; node < 3; node++) {
      answers.push(await fetch(`${c.nodes[node]!.url}/auth/credentials`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: `nessuno-${process.pid}`, password: 'sbagliata' }),
      }));
    }
    const fields = answers.map((r) => [r.status, r.headers.get('ratelimit-policy'), r.headers.get('ratelimit')?.replace(/;t=\d+$/, '')]);
    record('sign-in-failures', 'Failed sign-ins across three nodes', { 'RateLimit of each answer': answers.map((r) => r.headers.get('ratelimit')).join(' | ') });
    expect(fields).to.deep.equal([9, 8, 7].map((r) => [401, '"sign-in-failures";q=10;w=60', `"sign-in-failures";r=${r}`]));
  });

  it('sends query and files reads to the replica, not the primary', async () => {
    const [replicaBefore, primaryBefore, servedBefore] = [await status(c.replicaDb, 'Com_select'), await status(c.primaryDb, 'Com_select'), await total(c.nodes, 'db_reads_total', { target: `127.0.0.1:${c.replica.port}` })];
    let stop = false;
    const load = balanced(c, reads(c), 8, () => stop);
    await sleep(4000);
    stop = true;
    const samples = await load;
    const [replicaAfter, primaryAfter, servedAfter] = [await status(c.replicaDb, 'Com_select'), await status(c.primaryDb, 'Com_select'), await total(c.nodes, 'db_reads_total', { target: `127.0.0.1:${c.replica.port}` })];
    record('replica-reads', 'Reads on the replica', {
      'read requests': samples.length,
      'failed': failedOf(samples).length,
      'replica Com_select, increase': replicaAfter - replicaBefore,
      'primary Com_select, increase': primaryAfter - primaryBefore,
      'reads the nodes served from the replica': servedAfter - servedBefore,
    });
    expect(failedOf(samples)).to.deep.equal([]);
    expect(servedAfter - servedBefore).to.equal(samples.length);
    expect(replicaAfter - replicaBefore).to.be.at.least(samples.length);
    // The nodes' own statements on the primary: heartbeats are UPDATEs, tokens are verified without it.
    expect(primaryAfter - primaryBefore).to.be.below(samples.length / 20);
  });

  it('loses no read when the replica server stops mid-load, and moves reads back once it is up again', async () => {
    const target = `127.0.0.1:${c.replica.port}`;
    let stop = false;
    const load = balanced(c, reads(c), 8, () => stop);
    await sleep(2000);
    const primaryBefore = await total(c.nodes, 'db_reads_total', { target: 'primary' });
    const stoppedAt = performance.now();
    await c.replica.stop();
    await sleep(3000);
    const readyWhileDown = await Promise.all(c.nodes.map(async (n) => (await fetch(`${n.url}/ready`)).status));
    const primaryDuring = await total(c.nodes, 'db_reads_total', { target: 'primary' });
    const replicaDuring = await total(c.nodes, 'db_reads_total', { target });
    const restartedAt = performance.now();
    await c.replica.start();
    await sleep(4000);
    stop = true;
    const samples = await load;
    const replicaAfter = await total(c.nodes, 'db_reads_total', { target });
    const healthy = await Promise.all(c.nodes.map((n) => metric(n.url, 'db_replica_healthy', { replica: target })));
    const failed = failedOf(samples);
    const latencies = samples.map((s) => s.end - s.start);
    record('replica-outage', 'Replica server stopped and started under load', {
      'read requests': samples.length,
      'failed': failed.length,
      'sent while the replica was down': samples.filter((s) => s.start > stoppedAt && s.start < restartedAt).length,
      'p99 latency (ms)': round(percentile(latencies, 99)),
      'reads moved to the primary while it was down': primaryDuring - primaryBefore,
      'reads on the replica after it was started again': replicaAfter - replicaDuring,
      '/ready of the nodes while it was down': readyWhileDown.join(' '),
    });
    expect(failed.slice(0, 5)).to.deep.equal([]);
    expect(primaryDuring - primaryBefore).to.be.greaterThan(0);
    expect(replicaAfter - replicaDuring, 'traffic back on the replica').to.be.greaterThan(0);
    expect(healthy).to.deep.equal([1, 1, 1]);
    expect(readyWhileDown).to.deep.equal([200, 200, 200]);
  });

  it(`skips a replica held more than REPLICA_MAX_LAG_MS (${maxLagMs} ms) behind, so a row it has not applied is read from the primary`, async () => {
    const target = `127.0.0.1:${c.replica.port}`;
    await c.replicaDb.raw('STOP SLAVE SQL_THREAD');
    try {
      const written = Date.now();
      const [id] = await c.primaryDb('soggetto_recapito').insert({ soggetto_id: 424242, recapito: `fresh-${process.pid}`, tipo_recapito_id: 1 });
      const lookup = (node: number) => fetch(`${c.nodes[node]!.url}/json/reply/SoggettoRecapitoQuery?SoggettoId=424242`, { headers: { authorization: `Bearer ${c.adminToken}` } }).then((r) => r.json() as Promise<{ results: Array<{ id: number }> }>);
      // Every node stops reading from the replica once its lag passes the bound...
      const healthOf = () => Promise.all(c.nodes.map((n) => metric(n.url, 'db_replica_healthy', { replica: target })));
      let skippedAfterMs: number | undefined;
      while (Date.now() - written < maxLagMs + 5000) {
        if ((await healthOf()).every((h) => h === 0)) {
          skippedAfterMs = Date.now() - written;
          break;
        }
        await sleep(50);
      }
      const skipped = await healthOf();
      // ...so the row the replica has not applied is found through every node.
      const found = await Promise.all(c.nodes.map((_, i) => lookup(i).then((r) => r.results.some((x) => Number(x.id) === Number(id)))));
      const lag = await metric(c.nodes[1]!.url, 'db_replica_lag_seconds', { replica: target });
      const servedBefore = await total(c.nodes, 'db_reads_total', { target });
      let stop = false;
      const load = balanced(c, reads(c), 4, () => stop);
      await sleep(1500);
      stop = true;
      const samples = await load;
      const servedDuring = await total(c.nodes, 'db_reads_total', { target }) - servedBefore;
      record('replica-lag', 'Replica held behind (SQL thread stopped)', {
        'REPLICA_MAX_LAG_MS': maxLagMs,
        'every node skipping the replica, after the SQL thread stopped (ms)': skippedAfterMs ?? 'never',
        'a row the replica has not applied, found through nodes 1, 2, 3': found.join(' '),
        'replica lag seen by node 2 (s)': lag,
        'reads on the lagging replica meanwhile': servedDuring,
        'failed reads': failedOf(samples).length,
      });
      expect(skipped).to.deep.equal([0, 0, 0]);
      expect(skippedAfterMs).to.be.below(maxLagMs + 3000);
      expect(found).to.deep.equal([true, true, true]);
      expect(lag).to.be.above(maxLagMs / 1000);
      expect(servedDuring).to.equal(0);
      expect(failedOf(samples)).to.deep.equal([]);
    } finally {
      await c.replicaDb.raw('START SLAVE SQL_THREAD');
    }
    const end = Date.now() + 10_000;
    while ((await metric(c.nodes[1]!.url, 'db_replica_healthy', { replica: target })) !== 1 && Date.now() < end) await sleep(100);
    expect(await metric(c.nodes[1]!.url, 'db_replica_healthy', { replica: target }), 'back in service once caught up').to.equal(1);
  });

  it('sends a write on the primary to live answers on every node, through the replica', async () => {
    const next = Number(((await c.primaryDb('soggetto_recapito').max({ m: 'id' })) as Array<{ m: number }>)[0]!.m) + 1;
    const target = `/json/reply/SoggettoRecapitoQuery?SoggettoIdIn=${9_000_000 + next}&Fields=Id`;
    const streams = c.nodes.map((node) => liveStream(`${node.url}${target}`, c.adminToken));
    try {
      await waitUntil(() => streams.every((st) => st.data.length === 1), 10_000, 'every first event');
      const started = Date.now();
      await c.primaryDb('soggetto_recapito').insert({ id: next, soggetto_id: 9_000_000 + next, tipo_recapito_id: 1, recapito: `live${next}@pec.it`, codice_esterno: null });
      await waitUntil(() => streams.every((st) => st.data.length === 2), 10_000, 'the write on every node');
      const ms = Date.now() - started;
      record('live', 'A write on the primary, seen by a live answer on each node', { nodes: streams.length, 'write to the last event, ms': ms, 'LIVE_INTERVAL_MS': liveIntervalMs });
      for (const st of streams) expect((JSON.parse(st.data[1]!) as { results: Array<{ id: number }> }).results).to.deep.equal([{ id: next }]);
    } finally {
      for (const st of streams) st.close();
    }
  });

  it('carries a session across nodes: sign in on 1, refresh on 2, log out on 3, refresh on 1 is refused', async () => {
    const post = (node: number, route: string, body: unknown, token?: string) => fetch(`${c.nodes[node]!.url}${route}`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body),
    });
    const signIn = await post(0, '/auth/credentials', adminUser);
    const session = (await signIn.json()) as { bearerToken: string; refreshToken: string };
    const refresh = await post(1, '/access-token', { refreshToken: session.refreshToken });
    const refreshed = (await refresh.json()) as { accessToken: string; refreshToken?: string };
    const logout = await post(2, '/auth/logout', {}, refreshed.accessToken);
    const again = await post(0, '/access-token', { refreshToken: refreshed.refreshToken ?? session.refreshToken });
    record('sessions', 'One session over three nodes', {
      'sign in, node 1': signIn.status, 'refresh, node 2': refresh.status, 'log out, node 3': logout.status, 'refresh again, node 1': again.status,
    });
    expect([signIn.status, refresh.status, logout.status, again.status]).to.deep.equal([200, 200, 200, 401]);
  });

  it('loses no request and answers no 5xx through a rolling restart of the three nodes under 30 s of load', async () => {
    const traffic = mixedRequests(c.adminToken, c.impiantoIds).filter((_, i) => i !== 7); // all but Register, which is rate limited
    let stop = false;
    const began = performance.now();
    const load = balanced(c, traffic, 16, () => stop);
    await sleep(3000);
    const restarts: Array<{ exitCode: number | null; downMs: number }> = [];
    for (let i = 0; i < c.nodes.length; i++) {
      restarts.push(await c.restart(i));
      await sleep(1000);
    }
    await sleep(Math.max(0, 30_000 - (performance.now() - began)));
    stop = true;
    const samples = await load;
    const lost = samples.filter((s) => s.error !== undefined);
    const fivexx = samples.filter((s) => s.status !== undefined && s.status >= 500);
    const other = samples.filter((s) => s.status !== undefined && s.status >= 400 && s.status < 500);
    record('rolling-restart', 'Rolling restart under load (16 client loops, 30 s)', {
      'requests': samples.length,
      'sent again to the next node after a refused connection': samples.filter((s) => s.retried > 0).length,
      'lost (transport errors)': lost.length,
      '5xx': fivexx.length,
      '4xx': other.length,
      'p99 latency (ms)': round(percentile(samples.map((s) => s.end - s.start), 99)),
      'node exit codes': restarts.map((r) => String(r.exitCode)).join(' '),
      'restart of each node, SIGTERM to ready (ms)': restarts.map((r) => round(r.downMs, 0)).join(' '),
    });
    expect(lost.slice(0, 5)).to.deep.equal([]);
    expect(fivexx.slice(0, 5)).to.deep.equal([]);
    expect(other.slice(0, 5)).to.deep.equal([]);
    expect(restarts.map((r) => r.exitCode)).to.deep.equal([0, 0, 0]);
  });

  it('purges exactly the expired and spent tokens and dead sessions of a seeded set', async () => {
    const now = Date.now();
    const [userId] = await c.primaryDb('app_user').insert({ user_name: `purge-${process.pid}`, user_name_key: `purge-${process.pid}`, password_hash: 'x', created_at: new Date(now - 86400_000) });
    const s = (id: string, revoked: boolean) => ({ id: `${id}-${process.pid}`, user_id: userId, created_at: new Date(now - 3600_000), revoked_at: revoked ? new Date(now - 1000) : null });
    await c.primaryDb('auth_session').insert([s('live', false), s('revoked', true), s('empty', false)]);
    const t = (name: string, session: string, expiresIn: number, spentAgo?: number) => ({
      token_hash: hashToken(`${name}-${process.pid}`), session_id: `${session}-${process.pid}`, expires_at: new Date(now + expiresIn), spent_at: spentAgo === undefined ? null : new Date(now - spentAgo),
    });
    const seeded = [
      t('valid', 'live', 3600_000), t('spentInWindow', 'live', 3600_000, 60_000),
      t('expired', 'live', -1000), t('spentLongAgo', 'live', 3600_000, reuseWindowMs + 60_000), t('ofRevoked', 'revoked', 3600_000),
    ];
    // Read before the rows go in: a purge may run the moment they are there.
    const purgedBefore = await total(c.nodes, 'auth_purged_rows_total', { table: 'refresh_token' });
    await c.primaryDb('refresh_token').insert(seeded);
    const left = async () => ({
      tokens: (await c.primaryDb('refresh_token').whereIn('token_hash', seeded.map((r) => r.token_hash)).select('token_hash')).map((r: { token_hash: string }) => r.token_hash).sort(),
      sessions: (await c.primaryDb('auth_session').where('user_id', userId).select('id')).map((r: { id: string }) => r.id).sort(),
    });
    const end = Date.now() + 15_000;
    while ((await left()).tokens.length > 2 && Date.now() < end) await sleep(200);
    await sleep(2500); // one more turn: it must not remove anything more
    const remaining = await left();
    const purgedBy = await Promise.all(c.nodes.map((n) => metric(n.url, 'auth_purged_rows_total', { table: 'refresh_token' })));
    record('purge', 'Purge of a seeded set of 5 tokens and 3 sessions (PURGE_INTERVAL_S=2)', {
      'tokens left (of 5)': remaining.tokens.length,
      'sessions left (of 3)': remaining.sessions.length,
      'refresh tokens purged by node 1, 2, 3 since start': purgedBy.join(' '),
      'purged by all nodes during the test': purgedBy.reduce((a, b) => a + b, 0) - purgedBefore,
    });
    expect(remaining.tokens).to.deep.equal([seeded[0]!, seeded[1]!].map((r) => r.token_hash).sort());
    expect(remaining.sessions).to.deep.equal([`live-${process.pid}`]);
    expect(purgedBy.reduce((a, b) => a + b, 0) - purgedBefore).to.be.at.least(3);
  });
});
