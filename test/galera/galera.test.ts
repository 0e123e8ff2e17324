// Issue 66, no single database node: the service on a three-node MariaDB Galera cluster, any
// node lost under writes, nothing lost. Three private Galera nodes on ports of their own
// (support/galera-cluster.ts; the shared server on 3306 is never touched).
//   Phase 1, the cluster itself: replication between nodes, a node paused for ever, a node
//   killed (kill -9) and rejoined.
//   Phase 2, two nodes of the built service on DATABASE_URL=mysql://root@h:p1,h:p2,h:p3/impianti
//   under a steady mix of registrations, sign-ins, refreshes and searches, while database nodes
//   are killed in turn, one is stopped (SIGSTOP) for 15 s and one restarted cleanly: after each,
//   every acknowledged write is on every node exactly once, a spent refresh token stays spent,
//   and no 5xx but 503 was answered. Figures: test-output/galera.json.
// Run alone: npx mocha --no-config --timeout 600000 --exit dist/test/galera/galera.test.js
// (or make test-cluster; it needs galera-4 and rsync, and about 3.5 minutes).
// GALERA_SEED repeats the traffic's random choices; GALERA_DATABASE_URL gives the services
// another DATABASE_URL (e.g. node 1's alone, to compare); GALERA_KEEP_DIRS=1 keeps the datadirs.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { connect, disconnect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { seedDemo } from '../../src/cli/demo-data.js';
import { adminUser } from '../reliability/support/reliability-target.js';
import { startService, type ServiceProcess } from '../reliability/support/service-process.js';
import { acknowledged, AccountTraffic, checkNode, outcomeOf, writeOps, type NodeCheck, type Rec } from './support/account-traffic.js';
import { inactiveTimeoutMs, sleep, startGalera, type GaleraCluster } from './support/galera-cluster.js';

const figuresFile = path.resolve('test-output/galera.json');
const seed = Number(process.env['GALERA_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
// Writes answer again once Galera has the lost node out of the view: its suspect timeout, then
// a view change of about 1.1 s, at times several seconds more (4.8 s once on an idle machine).
// No node commits before, so the issue's 2 s is below Galera's failure detection (design.md
// §12); this bound is Galera's inactive timeout, and the figures file holds each fault's time.
const targets = { writesAgainMs: inactiveTimeoutMs, rejoinMs: 30_000 };

/** Everything the suite measured, rewritten as each part ends. */
const figures: { run: string; seed: number; machine: Record<string, unknown>; startup?: Record<string, unknown>; phase1: Record<string, unknown>; phase2: Record<string, unknown>; faults: FaultRow[] } = {
  run: new Date().toISOString(), seed, machine: {}, phase1: {}, phase2: {}, faults: [],
};
function save(): void {
  figures.machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadAverage1m: Number(os.loadavg()[0]!.toFixed(2)) };
  fs.mkdirSync(path.dirname(figuresFile), { recursive: true });
  fs.writeFileSync(figuresFile, JSON.stringify(figures, null, 2) + '\n');
}

interface FaultRow {
  fault: string;
  requests: number;
  /** Answers other than 200/201 while the fault lasted, by status (ERR:code for transport errors). */
  non2xx: Record<string, number>;
  non2xxByOp: Record<string, number>;
  /** From the fault until a write sent after the last failed one was acknowledged; null: not before the node came back. */
  recoveryMs: number | null;
  /** The longest time without an acknowledged write while the fault lasted. */
  longestWriteGapMs: number;
  readsStopped: boolean;
  longestReadGapMs: number;
  /** From the node's restart (or SIGCONT) until it is Synced and answers a read; then the requests meanwhile. */
  rejoinMs: number | null;
  rejoinRequests: number;
  rejoinNon2xx: Record<string, number>;
  /** Acknowledged writes so far (users, sessions, tokens, spends) and the fewest any node holds. */
  acknowledged: number;
  found: number;
  missing: number;
  doubled: number;
  /** Writes answered with an error that had been done all the same (asked again afterwards: 409, or 401 for a refresh). */
  ghosts: string;
  spentTokenReplayed: string;
  /** The services' pooled connections to each database node before the fault -> after the rejoin. */
  serviceConnections: string;
  /** When the node accepted connections, was Synced, served a read (ms after its restart), and its state transfer. */
  rejoinSteps: string;
  /** The failed requests the services logged meanwhile: error code and driver code. */
  errorsSeen: string;
  /** Checks a database node refused before answering (1047 while not Synced). */
  checksRefused: string;
}

const by = <T>(items: readonly T[], key: (t: T) => string): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
};
const round = (n: number) => Math.round(n);

/** The figures of the requests sent in [from, to). */
function windowFigures(records: readonly Rec[], from: number, to: number) {
  const sent = records.filter((r) => r.start >= from && r.start < to);
  const writes = records.filter((r) => writeOps.includes(r.op) && r.end >= from && r.start < to);
  const lastFailure = Math.max(from, ...writes.filter((r) => !acknowledged(r) && r.end < to).map((r) => r.end));
  const again = writes.filter((r) => acknowledged(r) && r.start >= lastFailure).sort((a, b) => a.end - b.end)[0];
  const gap = (done: readonly Rec[]) => {
    let longest = 0;
    let at = from;
    for (const r of [...done].sort((a, b) => a.end - b.end)) {
      longest = Math.max(longest, r.end - at);
      at = r.end;
    }
    return Math.max(longest, to - at);
  };
  const reads = records.filter((r) => r.op === 'query' && r.end >= from && r.start < to);
  const longestReadGapMs = round(gap(reads.filter((r) => acknowledged(r) && r.end <= to)));
  return {
    requests: sent.length,
    non2xx: by(sent.filter((r) => !acknowledged(r)), outcomeOf),
    non2xxByOp: by(sent.filter((r) => !acknowledged(r)), (r) => `${r.op} ${outcomeOf(r)}`),
    recoveryMs: again ? round(again.end - from) : null,
    longestWriteGapMs: round(gap(writes.filter((r) => acknowledged(r) && r.end <= to))),
    readsStopped: reads.some((r) => !acknowledged(r)) || longestReadGapMs > 1000,
    longestReadGapMs,
  };
}

let writerTag = 0;
/** A steady write load straight on database nodes (phase 1): one connection, one INSERT after another, 5 ms apart. */
function inserts(c: GaleraCluster, node: number, table: string, stop: () => boolean) {
  const acked: Array<{ key: string; at: number }> = [];
  const errors: string[] = [];
  const unknown: string[] = [];
  let n = 0;
  const tag = (writerTag++).toString(36);
  const done = (async () => {
    let conn: mysql.Connection | undefined;
    while (!stop()) {
      const key = `n${node + 1}-${tag}-${n++}`;
      try {
        if (!conn) {
          conn = await mysql.createConnection({ host: '127.0.0.1', port: c.nodes[node]!.port, user: 'root', connectTimeout: 2000 });
          conn.on('error', () => undefined);
        }
        await conn.query({ sql: `INSERT INTO ${table} (k, node) VALUES (?, ?)`, values: [key, node + 1], timeout: 10_000 });
        acked.push({ key, at: performance.now() });
        // A steady load, not a saturating one: the two cores also run the three nodes.
        await sleep(5);
      } catch (err) {
        const e = err as { code?: string; errno?: number };
        errors.push(`${e.code ?? 'error'}${e.errno ? ` ${e.errno}` : ''}`);
        unknown.push(key);
        conn?.destroy();
        conn = undefined;
        await sleep(100);
      }
    }
    conn?.destroy();
  })();
  return { acked, errors, unknown, done };
}

/** The longest time between acknowledged inserts after `from`. */
function longestGap(acked: ReadonlyArray<{ at: number }>, from: number, to: number): number {
  let longest = 0;
  let at = from;
  for (const a of acked.filter((x) => x.at >= from && x.at <= to)) {
    longest = Math.max(longest, a.at - at);
    at = a.at;
  }
  return round(Math.max(longest, to - at));
}

/** The state transfer a node's log shows from byte `from` on: IST of N writesets, or a whole SST. */
function transferIn(logFile: string, from: number): string {
  const text = fs.readFileSync(logFile, 'utf8').slice(from);
  const ist = /Receiving IST: (\d+) writesets/.exec(text);
  if (/rsync SST completed/.test(text)) return 'SST (rsync)';
  if (ist) return `IST of ${ist[1]} writesets`;
  return /Shifting .* -> SYNCED/.test(text) ? 'no transfer logged' : 'not Synced';
}

/** Errors a node answered a check with before it answered it (1047 while it is not Synced). */
const refusals: string[] = [];
async function retried<T>(what: string, read: () => Promise<T>, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await read();
    } catch (err) {
      const e = err as { code?: string; errno?: number };
      refusals.push(`${what}: ${e.code ?? 'error'} ${e.errno ?? ''}`.trim());
      if (Date.now() > until) throw err;
      await sleep(200);
    }
  }
}

describe('galera: the service on three MariaDB Galera nodes (issue 66)', function () {
  this.timeout(600_000);
  let c: GaleraCluster;

  before(async () => {
    console.log(`      galera traffic seed: ${seed} (GALERA_SEED=${seed} repeats it)`);
    c = await startGalera();
    figures.startup = { ms: round(c.startupMs), steps: c.startupSteps, multiHostUrl: c.multiHostUrl() };
    save();
    console.log(`      three Synced nodes in ${round(c.startupMs)} ms: ${JSON.stringify(c.startupSteps)}`);
  });
  after(async () => c?.destroy());

  describe('phase 1: the cluster', () => {
    const table = 'galera_probe.rows';
    before(async () => {
      await c.query(0, 'CREATE DATABASE galera_probe');
      await c.query(0, `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, k VARCHAR(40) NOT NULL UNIQUE, node INT NOT NULL)`);
    });

    /** Every key in `keys` is on node `i`, each once (read after the node has applied everything committed). */
    const missingOn = async (i: number, keys: readonly string[]) => {
      const rows = await retried(`node ${i + 1}`, () => c.query<{ k: string; n: number }>(i, `SELECT k, COUNT(*) AS n FROM ${table} GROUP BY k`, [], { syncWait: true, timeoutMs: 30_000 }));
      const held = new Map(rows.map((r) => [r.k, Number(r.n)]));
      return { missing: keys.filter((k) => !held.has(k)), doubled: keys.filter((k) => (held.get(k) ?? 0) > 1) };
    };

    it('a table created on node 1 gets a row on node 2 that node 3 reads', async () => {
      await c.query(1, `INSERT INTO ${table} (k, node) VALUES ('from-node-2', 2)`);
      const synced = await c.query<{ k: string; node: number }>(2, `SELECT k, node FROM ${table} WHERE k = 'from-node-2'`, [], { syncWait: true });
      const sizes = await Promise.all([0, 1, 2].map((i) => c.status(i, 'wsrep_cluster_size')));
      figures.phase1['replication'] = { 'row read on node 3 (wsrep_sync_wait=1)': synced.length, 'cluster size seen by nodes 1, 2, 3': sizes.join(' ') };
      save();
      expect(synced).to.deep.equal([{ k: 'from-node-2', node: 2 }]);
      expect(sizes).to.deep.equal(['3', '3', '3']);
    });

    it('measures what a causal read costs: the same point read with wsrep_sync_wait 0 and 1, alternating', async () => {
      const open = async (syncWait: number) => {
        const conn = await mysql.createConnection({ host: '127.0.0.1', port: c.nodes[1]!.port, user: 'root' });
        await conn.query(`SET SESSION wsrep_sync_wait = ${syncWait}`);
        return conn;
      };
      const [plain, causal] = [await open(0), await open(1)];
      const timings: Record<'plain' | 'causal', number[]> = { plain: [], causal: [] };
      const read = async (kind: 'plain' | 'causal') => {
        const started = performance.now();
        const [rows] = (await (kind === 'plain' ? plain : causal).query(`SELECT k FROM ${table} WHERE k = 'from-node-2'`)) as unknown as [Array<{ k: string }>];
        timings[kind].push(performance.now() - started);
        return rows.map((r) => r.k);
      };
      try {
        for (let i = 0; i < 400; i++) {
          const [a, b] = i % 2 === 0 ? [await read('plain'), await read('causal')] : [await read('causal'), await read('plain')];
          expect(a).to.deep.equal(b);
        }
        const [[setting]] = (await causal.query('SELECT @@wsrep_sync_wait AS w')) as unknown as [[{ w: number }]];
        expect(Number(setting.w), 'the causal session waits for reads').to.equal(1);
      } finally {
        await plain.end();
        await causal.end();
      }
      const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
      const ms = (x: number) => Number(x.toFixed(3));
      figures.phase1['causal read'] = {
        reads: 400, 'median ms, wsrep_sync_wait=0': ms(median(timings.plain)), 'median ms, wsrep_sync_wait=1': ms(median(timings.causal)),
        'cost per causal read, ms': ms(median(timings.causal) - median(timings.plain)),
      };
      save();
    });

    it('a write on a node paused for ever does not stop the writes on the others', async () => {
      // A connection made before the pause, so the INSERT reaches the stopped server's socket.
      const conn = await mysql.createConnection({ host: '127.0.0.1', port: c.nodes[2]!.port, user: 'root' });
      conn.on('error', () => undefined);
      let stop = false;
      const writers = [0, 1].map((i) => inserts(c, i, table, () => stop));
      await sleep(500);
      c.pause(2);
      const pausedAt = performance.now();
      const stuck = conn.query({ sql: `INSERT INTO ${table} (k, node) VALUES ('on-paused-node-3', 3)`, timeout: 60_000 })
        .then(() => 'acknowledged', (err: { code?: string; errno?: number; message?: string }) => `${err.code} ${err.errno ?? ''}: ${String(err.message).slice(0, 100)}`);
      let stuckAfterPause: string | undefined;
      void stuck.then((o) => { stuckAfterPause ??= `${o} after ${round(performance.now() - pausedAt)} ms`; });
      await sleep(6000);
      const sizeWhilePaused = await c.status(0, 'wsrep_cluster_size');
      const until = performance.now();
      const ackedWhilePaused = writers.map((w) => w.acked.filter((a) => a.at > pausedAt).length);
      const gaps = writers.map((w) => longestGap(w.acked, pausedAt, until));
      const stillWaiting = stuckAfterPause === undefined;
      stop = true;
      await Promise.all(writers.map((w) => w.done));
      c.resume(2);
      const resumedAt = performance.now();
      const outcome = await stuck;
      conn.destroy();
      const rejoinMs = await c.waitSynced(2, 60_000);
      const rejoinedAfterMs = round(performance.now() - resumedAt);
      const keys = writers.flatMap((w) => w.acked.map((a) => a.key));
      const onNode3 = await missingOn(2, keys);
      figures.phase1['reads refused while checking'] = JSON.stringify(refusals.splice(0));
      const paused = await Promise.all([0, 1, 2].map((n) => retried(`node ${n + 1}`, () => c.query<{ n: number }>(n, `SELECT COUNT(*) AS n FROM ${table} WHERE k = 'on-paused-node-3'`, [], { syncWait: true }))));
      figures.phase1['paused-node'] = {
        'inserts acknowledged on nodes 1 and 2 in the 6 s node 3 was stopped': ackedWhilePaused.join(' '),
        'longest time without an acknowledged insert on nodes 1 and 2 (ms)': gaps.join(' '),
        'cluster size seen by node 1 while node 3 was stopped': String(sizeWhilePaused),
        'the INSERT sent to stopped node 3': stillWaiting ? `no answer while stopped; after SIGCONT: ${outcome}` : String(stuckAfterPause),
        'its row on nodes 1, 2, 3': paused.map((rows) => Number(rows[0]?.n ?? 0)).join(' '),
        'errors on nodes 1 and 2': JSON.stringify(by(writers.flatMap((w) => w.errors), (e) => e)),
        'node 3 Synced again after SIGCONT (ms)': round(rejoinMs),
        'acknowledged inserts missing on node 3 after it rejoined': onNode3.missing.length,
      };
      save();
      expect(ackedWhilePaused.every((n) => n > 0), 'writes continue on nodes 1 and 2').to.equal(true);
      expect(Math.max(...gaps), 'the eviction of the stopped node stalls writes for at most 5 s').to.be.below(5000);
      expect(sizeWhilePaused).to.equal('2');
      expect(stillWaiting, 'the write on the stopped node waits').to.equal(true);
      expect(rejoinedAfterMs).to.be.below(targets.rejoinMs);
      expect(onNode3).to.deep.equal({ missing: [], doubled: [] });
      expect(new Set(paused.map((rows) => Number(rows[0]?.n ?? 0))).size, 'the nodes agree on the write sent to the stopped node').to.equal(1);
    });

    it('kill -9 of node 2: writes on 1 and 3 continue, node 2 restarts, rejoins and has every row within 30 s', async () => {
      let stop = false;
      const writers = [0, 2].map((i) => inserts(c, i, table, () => stop));
      await sleep(500);
      const logFrom = fs.statSync(c.nodes[1]!.logFile).size;
      const killedAt = performance.now();
      await c.kill9(1);
      await sleep(4000);
      const restartAt = performance.now();
      const ackedWhileDown = writers.map((w) => w.acked.filter((a) => a.at > killedAt && a.at < restartAt));
      const gaps = writers.map((w) => longestGap(w.acked, killedAt, restartAt));
      await c.start(1);
      await c.waitSynced(1, 60_000);
      const writtenWhileDown = ackedWhileDown.flat().map((a) => a.key);
      const seen = await missingOn(1, writtenWhileDown);
      const rejoinMs = round(performance.now() - restartAt);
      await sleep(500);
      stop = true;
      await Promise.all(writers.map((w) => w.done));
      const all = writers.flatMap((w) => w.acked.map((a) => a.key));
      const everywhere = await Promise.all([0, 1, 2].map((i) => missingOn(i, all)));
      const counts = await Promise.all([0, 1, 2].map(async (i) => Number((await retried(`node ${i + 1}`, () => c.query<{ n: number }>(i, `SELECT COUNT(*) AS n FROM ${table}`, [], { syncWait: true })))[0]!.n)));
      const transfer = transferIn(c.nodes[1]!.logFile, logFrom);
      figures.phase1['kill-9'] = {
        'inserts acknowledged on nodes 1 and 3 while node 2 was dead (4 s)': ackedWhileDown.map((a) => a.length).join(' '),
        'longest time without an acknowledged insert on nodes 1 and 3 (ms)': gaps.join(' '),
        'errors on nodes 1 and 3': JSON.stringify(by(writers.flatMap((w) => w.errors), (e) => e)),
        'restart to Synced with every row written while down (ms)': rejoinMs,
        'node 2 state transfer': transfer,
        'acknowledged inserts missing on nodes 1, 2, 3': everywhere.map((e) => e.missing.length).join(' '),
        'rows on nodes 1, 2, 3': counts.join(' '),
        'inserts answered with an error (outcome unknown)': writers.reduce((n, w) => n + w.unknown.length, 0),
        'reads refused by a node (not Synced), retried': JSON.stringify(refusals.splice(0)),
      };
      save();
      expect(ackedWhileDown.every((a) => a.length > 0), 'writes continue on nodes 1 and 3').to.equal(true);
      expect(Math.max(...gaps)).to.be.below(5000);
      expect(seen).to.deep.equal({ missing: [], doubled: [] });
      expect(rejoinMs).to.be.below(targets.rejoinMs);
      expect(everywhere).to.deep.equal([0, 1, 2].map(() => ({ missing: [], doubled: [] })));
      expect(new Set(counts).size, 'the three nodes hold the same rows').to.equal(1);
    });
  });

  describe('phase 2: two service nodes on DATABASE_URL with the three hosts', () => {
    const services: ServiceProcess[] = [];
    let traffic: AccountTraffic;
    let databaseUrl: string;
    let adminToken: string;

    before(async () => {
      databaseUrl = process.env['GALERA_DATABASE_URL'] ?? c.multiHostUrl('impianti');
      await c.query(0, 'CREATE DATABASE impianti CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
      // Migrated and seeded through the three hosts, as a service node would: the leases and
      // the substring index's fill run on the cluster.
      const db = connect({ databaseUrl, poolMax: 2 });
      await migrate(db);
      await seedDemo(db);
      await disconnect(db);
      figures.phase2 = { DATABASE_URL: databaseUrl };
      save();
      const env = {
        DATABASE_URL: databaseUrl,
        ADMIN_USERNAME: adminUser.userName,
        ADMIN_PASSWORD: adminUser.password,
        ACCESS_TOKEN_TTL: '1h',
        // On, and far above the traffic: every registration counts in one shared row, written
        // from both service nodes through different database nodes (certification conflicts).
        RATE_LIMIT_REGISTER_PER_MIN: '1000000',
        RATE_LIMIT_LOGIN_FAILURES_PER_MIN: '0',
        // Sign-ins and registrations hash with scrypt: production cost on two cores would measure hashing.
        SCRYPT_LOG_N: '10',
      };
      for (let i = 0; i < 2; i++) services.push(await startService(env, path.resolve(`test-output/galera-service-${i + 1}.log`)));
      const signIn = await fetch(`${services[0]!.url}/auth/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(adminUser) });
      if (signIn.status !== 200) throw new Error(`admin sign-in failed: ${signIn.status} ${await signIn.text()}`);
      adminToken = ((await signIn.json()) as { bearerToken: string }).bearerToken;
      traffic = new AccountTraffic(() => services.map((s) => s.url), adminToken, seed);
    });
    after(async () => {
      await Promise.all(services.map((s) => s.stop()));
    });

    it('keeps the features: the substring index, an export, one entity tag on both service nodes, and a live answer on one after a write through another database node', async () => {
      const auth = { authorization: `Bearer ${adminToken}` };
      const get = (i: number, target: string, headers: Record<string, string> = {}) => fetch(`${services[i]!.url}${target}`, { headers: { ...auth, ...headers } });
      const search = '/json/reply/SoggettoRecapitoQuery?RecapitoContains=brambilla&Include=Total';
      const [a, b] = await Promise.all([get(0, search), get(1, search)]);
      const body = (await a.json()) as { total: number; results: Array<{ recapito: string }> };
      expect([a.status, b.status]).to.deep.equal([200, 200]);
      expect(body.total).to.be.above(0);
      expect(body.results.every((r) => r.recapito.toLowerCase().includes('brambilla'))).to.equal(true);
      expect(a.headers.get('etag'), 'one entity tag on both nodes').to.equal(b.headers.get('etag'));
      const exported = await get(1, '/json/reply/SoggettoRecapitoQueryExport.jsonl');
      const lines = (await exported.text()).split('\n').filter(Boolean);
      const counted = await c.query<{ n: number }>(2, 'SELECT COUNT(*) AS n FROM impianti.soggetto_recapito', [], { syncWait: true });
      // Every row, then the line that ends the export.
      expect([exported.status, lines.length - 1]).to.deep.equal([200, Number(counted[0]!.n)]);
      // Live: a stream on service node 2, a write through database node 3, outside the service.
      const stream = await get(1, '/json/reply/SoggettoRecapitoQuery?Id=1', { accept: 'text/event-stream' });
      expect(stream.status).to.equal(200);
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      const events = () => text.split('\n\n').filter((e) => e.includes('data: '));
      const until = async (count: number) => {
        const end = Date.now() + 10_000;
        while (events().length < count) {
          if (Date.now() > end) throw new Error(`live: ${count} events not within 10 s; got ${JSON.stringify(text)}`);
          const { value, done } = await reader.read();
          if (done) throw new Error('live: the stream ended');
          text += value;
        }
      };
      try {
        await until(1);
        await c.query(2, "UPDATE impianti.soggetto_recapito SET recapito = 'galera-live@pec.it' WHERE id = 1");
        const written = performance.now();
        await until(2);
        figures.phase2['live: write through database node 3 to the event on service node 2, ms'] = Math.round(performance.now() - written);
        save();
        expect(events()[1]).to.include('galera-live@pec.it');
      } finally {
        await reader.cancel().catch(() => undefined);
      }
    });

    /** Until node `i` answers a read that waits for every write the cluster committed before it. */
    const serves = async (i: number) => {
      const until = Date.now() + 60_000;
      for (;;) {
        try {
          await c.query(i, 'SELECT COUNT(*) FROM impianti.app_user', [], { syncWait: true });
          return;
        } catch (err) {
          if (Date.now() > until) throw err;
          await sleep(100);
        }
      }
    };

    /** The database node the services hold most connections to (node 1 on a tie): the worst one to lose. */
    const busiest = () => {
      const held = c.nodes.map((n) => services.reduce((sum, s) => sum + (s.alive() ? s.connectionsTo(n.port) : 0), 0));
      return held.indexOf(Math.max(...held));
    };
    /** The lines a service logged since the last call. */
    const logRead = new Map<string, number>();
    const newLogLines = (file: string) => {
      const text = fs.readFileSync(file, 'utf8');
      const from = logRead.get(file) ?? 0;
      logRead.set(file, text.length);
      return text.slice(from).split('\n');
    };
    const connections = () => c.nodes.map((n) => services.reduce((sum, s) => sum + (s.alive() ? s.connectionsTo(n.port) : 0), 0)).join(' ');

    type Kind = 'kill -9' | 'SIGSTOP 15 s' | 'clean restart';
    const faults: Array<{ kind: Kind; node: number | 'busiest' }> = [
      { kind: 'kill -9', node: 0 },
      { kind: 'kill -9', node: 1 },
      { kind: 'kill -9', node: 2 },
      { kind: 'SIGSTOP 15 s', node: 'busiest' },
      { kind: 'clean restart', node: 'busiest' },
    ];

    for (const f of faults) {
      it(`${f.kind} of ${f.node === 'busiest' ? 'the busiest database node' : `database node ${f.node + 1}`} under writes: every acknowledged write on every node once, a spent token stays spent, no 5xx but 503`, async () => {
        const i = f.node === 'busiest' ? busiest() : f.node;
        const fault = `${f.kind} node ${i + 1}`;
        const logFrom = fs.statSync(c.nodes[i]!.logFile).size;
        let stop = false;
        // Six mixed loops, and two that only read: a read's gap is then never a write's wait.
        const load = Promise.all([traffic.run(6, () => stop), traffic.run(2, () => stop, 10, 'query')]);
        await sleep(2000);
        const before = connections();
        const faultAt = performance.now();
        if (f.kind === 'kill -9') await c.kill9(i);
        else if (f.kind === 'SIGSTOP 15 s') c.pause(i);
        else await c.stop(i);
        await sleep(f.kind === 'SIGSTOP 15 s' ? 15_000 : 5000);
        const restartAt = performance.now();
        let rejoinMs: number | null = null;
        let rejoinError: string | undefined;
        const rejoinSteps: string[] = [];
        const step = (what: string) => rejoinSteps.push(`${what} ${round(performance.now() - restartAt)}`);
        try {
          if (f.kind === 'SIGSTOP 15 s') c.resume(i);
          else await c.start(i);
          step('accepting');
          await c.waitSynced(i, 60_000);
          step('Synced');
          await serves(i);
          step('serving');
          rejoinMs = round(performance.now() - restartAt);
        } catch (err) {
          rejoinError = String((err as Error).message).slice(0, 600);
        } finally {
          await sleep(2000);
          stop = true;
          await load;
        }
        const endAt = performance.now();
        const during = windowFigures(traffic.records, faultAt, restartAt);
        const rejoin = windowFigures(traffic.records, restartAt, endAt);
        const window = traffic.records.filter((r) => r.start >= faultAt - 2000 && r.start < endAt);
        const ghostsBefore = { ...traffic.ghosts };
        const notDoneBefore = { ...traffic.notDone };
        await traffic.probeUnknown();
        const replay = await traffic.replaySpent(faultAt);
        const checks: NodeCheck[] = [];
        for (const n of [0, 1, 2]) checks.push(await checkNode(n, (sql) => retried(`node ${n + 1}`, () => c.query(n, sql, [], { syncWait: true, timeoutMs: 30_000 })), traffic));
        const errorLines = services.flatMap((s) => newLogLines(s.logFile)).flatMap((l) => {
          try {
            const line = JSON.parse(l) as { msg?: string; driverCode?: string; errorCode?: string; err?: { code?: string; errno?: number } };
            if (line.msg !== 'request failed') return [];
            return [`${line.errorCode ?? 'error'} ${line.driverCode ?? line.err?.code ?? ''}${line.err?.errno ? ` ${line.err.errno}` : ''}`.trim()];
          } catch {
            return [];
          }
        });
        const fivexx = window.filter((r) => r.status !== undefined && r.status >= 500 && r.status !== 503);
        const transport = window.filter((r) => r.error !== undefined && r.error !== 'ECONNREFUSED');
        const missing = Math.max(...checks.map((k) => k.acknowledged - k.found));
        const doubled = Math.max(...checks.map((k) => k.doubled.users + k.doubled.sessionsWithTwoLiveTokens))
          + window.filter((r) => (r.op === 'register' && r.status === 409) || (r.op === 'refresh' && r.status === 401)).length;
        const row: FaultRow = {
          fault,
          requests: during.requests,
          non2xx: during.non2xx,
          non2xxByOp: during.non2xxByOp,
          recoveryMs: during.recoveryMs,
          longestWriteGapMs: during.longestWriteGapMs,
          readsStopped: during.readsStopped,
          longestReadGapMs: during.longestReadGapMs,
          rejoinMs,
          rejoinRequests: rejoin.requests,
          rejoinNon2xx: rejoin.non2xx,
          acknowledged: checks[0]!.acknowledged,
          found: Math.min(...checks.map((k) => k.found)),
          missing,
          doubled,
          ghosts: `registrations ${traffic.ghosts.registrations - ghostsBefore.registrations} of ${traffic.ghosts.registrations - ghostsBefore.registrations + traffic.notDone.registrations - notDoneBefore.registrations} refused, refreshes ${traffic.ghosts.refreshes - ghostsBefore.refreshes} of ${traffic.ghosts.refreshes - ghostsBefore.refreshes + traffic.notDone.refreshes - notDoneBefore.refreshes} refused`,
          spentTokenReplayed: replay ? replay.status : 'none spent yet',
          serviceConnections: `${before} -> ${connections()}`,
          rejoinSteps: `${rejoinSteps.join(', ')} ms; ${transferIn(c.nodes[i]!.logFile, logFrom)}`,
          errorsSeen: JSON.stringify(by(errorLines, (e) => e)),
          checksRefused: JSON.stringify(by(refusals.splice(0), (e) => e)),
        };
        figures.faults.push(row);
        save();
        console.log(`      ${fault}: ${JSON.stringify(row)}`);
        expect(rejoinError, `the node rejoins: ${rejoinError}`).to.equal(undefined);
        expect(checks.map((k) => k.missing), 'acknowledged writes missing on nodes 1, 2, 3').to.deep.equal([0, 1, 2].map(() => ({ users: 0, sessions: 0, tokens: 0, spends: 0 })));
        expect(checks.map((k) => k.doubled), 'doubled on nodes 1, 2, 3').to.deep.equal([0, 1, 2].map(() => ({ users: 0, sessionsWithTwoLiveTokens: 0 })));
        expect(new Set(checks.map((k) => JSON.stringify(k.rows))).size, `the nodes hold the same rows: ${JSON.stringify(checks.map((k) => k.rows))}`).to.equal(1);
        expect(doubled, 'a 409 to a new name or a 401 to a live refresh token: a write done twice').to.equal(0);
        expect(replay?.status ?? '401', 'a spent refresh token').to.equal('401');
        expect(fivexx.map(outcomeOf), '5xx other than 503').to.deep.equal([]);
        expect(transport.map(outcomeOf), 'requests lost in transport').to.deep.equal([]);
      });
    }

    it(`meets the targets: writes answer again within ${targets.writesAgainMs / 1000} s of each fault, the node serves again within ${targets.rejoinMs / 1000} s`, () => {
      console.table(figures.faults.map((r) => ({
        fault: r.fault, requests: r.requests, 'non-2xx': JSON.stringify(r.non2xx), 'recovery ms': r.recoveryMs, 'write gap ms': r.longestWriteGapMs,
        'reads stopped': r.readsStopped, 'rejoin ms': r.rejoinMs, 'rejoin non-2xx': JSON.stringify(r.rejoinNon2xx), 'ack / found': `${r.acknowledged} / ${r.found}`,
      })));
      expect(figures.faults.length, 'every fault ran').to.equal(faults.length);
      expect(figures.faults.filter((r) => r.recoveryMs === null || r.recoveryMs > targets.writesAgainMs).map((r) => `${r.fault}: ${r.recoveryMs} ms`)).to.deep.equal([]);
      expect(figures.faults.filter((r) => r.rejoinMs === null || r.rejoinMs > targets.rejoinMs).map((r) => `${r.fault}: ${r.rejoinMs} ms`)).to.deep.equal([]);
    });
  });
});
