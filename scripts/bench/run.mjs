// `make bench`: the service against a hand-written baseline on the same data and mix,
// plus start-up time, memory, scaling with table size and a registration flood.
// Writes scripts/bench/results.json and results.svg; prints a summary.
//
//   node scripts/bench/run.mjs [--rounds 5] [--seconds 10] [--connections 16] [--warmup 10]
//                              [--pairs 9] [--kind-seconds 4] [--flood-windows 5]
//                              [--only mix,kinds,sqlite,scale,flood,load,instructions,sidebyside]
//                              [--quick] [--profile] [--profile-kind point] [--engine mysql|sqlite]
//                              [--kinds point,files] [--flood-rate N] [--service-env K=V,...]
//                              [--instruction-requests 1000] [--load-rows 1000000,10000000]
// `load` (phase-load.mjs) times `npm run load` against each engine's own bulk loader.
// `kinds` times each kind of the mix alone (rounds of that kind only, the two sides
// alternating); `sqlite` runs the mix and every kind again with both servers on a 1M-row
// SQLite file. `--only instructions` (not in the default run: about 30 minutes) counts,
// under callgrind, the instructions each server executes per request of each kind on both
// engines (instructions.mjs): the same count however fast the machine runs.
// `--only sidebyside` (not in the default run either: about 11 minutes) loads both servers
// at once with each kind, on both engines, so that both run on the machine as it is at
// that moment: their CPU per request compared without the machine's drift. --profile
// runs one round (of the mix, or of --profile-kind alone) against each side under
// --cpu-prof, on --engine, and prints the CPU each layer (socket writes, node, knex, our
// code...) costs per request on each; the .cpuprofile files stay in scripts/bench/out/,
// for Chrome DevTools.
// MYSQL_URL (default mysql://root@127.0.0.1:3306/test) names the server; the bench uses
// its own databases impianti_bench (1M rows), impianti_bench_100k and impianti_bench_10k.
import fs from 'node:fs';
import os from 'node:os';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import jwt from 'jsonwebtoken';
import mysql from 'mysql2/promise';
import { renderChart } from './chart.mjs';
import { closedLoop, joinRounds, paced } from './load.mjs';
import { indexedKind, mixKinds, mixSequence } from './mix.mjs';
import { childPids, cpuSeconds, freePort, mysqldPid, peakRssMb, startNode, stop } from './processes.mjs';
import { connectionOf, seedDatabase, seedSqlite } from './seed.mjs';
import { summarizeProfile } from './profile.mjs';
import { printScale, scaleTargets, timeShapes } from './scale-queries.mjs';
import { callgrindWrapper, checkValgrind, countWindows } from './instructions.mjs';
import { loadPhase } from './phase-load.mjs';

const root = new URL('../../', import.meta.url);
const here = new URL('./', import.meta.url);
const out = new URL('out/', here);
fs.mkdirSync(out, { recursive: true });

/**
 * The bench runs a private copy of the build (dist/ and generated/ under out/app/), so a
 * rebuild elsewhere in the tree (`make build` empties dist/) cannot pull files from under
 * a running service. Modules still resolve from the repository's node_modules.
 */
function snapshotBuild() {
  const app = new URL('app/', out);
  fs.rmSync(app, { recursive: true, force: true });
  for (const dir of ['dist/src', 'dist/generated', 'generated']) {
    if (!fs.existsSync(new URL(dir, root))) throw new Error(`${dir} is missing: build first (make bench does)`);
    fs.cpSync(new URL(dir, root), new URL(dir, app), { recursive: true });
  }
  return app;
}

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    warmup: { type: 'string', default: '10' },
    only: { type: 'string', default: 'mix,kinds,sqlite,scale,flood,load' },
    'load-rows': { type: 'string', default: '1000000,10000000' },
    // 9 pairs per kind, not the 5 the targets ask for at least: on this 2-core VM one pair's
    // ratio moves by ±20 % with the machine's own speed (every process's CPU per request rises
    // and falls together), and the median of 9 holds still better (scripts/bench/README.md).
    pairs: { type: 'string', default: '9' },
    'flood-windows': { type: 'string', default: '5' },
    'kind-seconds': { type: 'string', default: '4' },
    'profile-kind': { type: 'string', default: '' },
    // The kinds `kinds` times alone, e.g. --kinds point,files (default: every kind).
    kinds: { type: 'string', default: '' },
    engine: { type: 'string', default: 'mysql' },
    quick: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    results: { type: 'string', default: new URL('results.json', here).pathname },
    // The flood's paced query rate; default: a quarter of the service's capacity on the mix.
    'flood-rate': { type: 'string', default: '' },
    // Extra service environment for experiments: --service-env HASH_CONCURRENCY=1,UV_THREADPOOL_SIZE=6
    'service-env': { type: 'string', default: '' },
    // Requests in each of the three windows counted per kind and side under callgrind.
    'instruction-requests': { type: 'string', default: '1000' },
  },
});
const rounds = opts.quick ? 2 : Number(opts.rounds);
const seconds = opts.quick ? 5 : Number(opts.seconds);
const warmup = opts.quick ? 2 : Number(opts.warmup);
const connections = Number(opts.connections);
const pairs = opts.quick ? 2 : Number(opts.pairs);
const kindSeconds = opts.quick ? 3 : Number(opts['kind-seconds']);
const floodWindows = opts.quick ? 2 : Number(opts['flood-windows']);
const sqliteFile = new URL('bench.sqlite', out).pathname;
const only = new Set(opts.only.split(','));

const serverUrl = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const secret = 'bench-secret-bench-secret-bench-secret-0123456789';
const main = { database: 'impianti_bench', soggettoRecapito: 1_000_000, caratteristicaGruppo: 100_000, impianti: 1000, filesPerRoot: 12 };
const scaleSizes = [
  { label: '10k', database: 'impianti_bench_10k', soggettoRecapito: 10_000, caratteristicaGruppo: 1000, impianti: 10, filesPerRoot: 4 },
  { label: '100k', database: 'impianti_bench_100k', soggettoRecapito: 100_000, caratteristicaGruppo: 1000, impianti: 10, filesPerRoot: 4 },
  { label: '1M', ...main },
];

const log = (...args) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);
const ratio = (a, b) => Math.round((a / b) * 1000) / 1000;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return Math.round(m * 10000) / 10000;
};

const token = (roles) =>
  jwt.sign({ sub: '1', sid: 'bench', roles }, secret, { algorithm: 'HS256', issuer: 'impianti-api', audience: 'impianti-api', expiresIn: '4h' });
const tokens = { admin: token(['Admin']), apiUser: token(['ApiUser']) };

const serviceEnvOverrides = Object.fromEntries(opts['service-env'].split(',').filter(Boolean).map((kv) => kv.split('=')));

/** The service as deployed: built, production mode, logs at warn. */
function serviceEnv(databaseUrl, extra = {}) {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: secret,
    // The flood must reach scrypt: with the per-IP limit (10 a minute) one client would
    // mostly get 429s.
    RATE_LIMIT_REGISTER_PER_MIN: '0',
    // scrypt at production cost (SCRYPT_LOG_N 15, r 8, p 3: ~0.3 s of one core and 32 MiB
    // per hash), at most cores - 1 hashes at once (the service's default, said here so the
    // results record it), in the service's low-priority hashing process (design.md §5).
    // HASH_QUEUE keeps its default of 256.
    HASH_CONCURRENCY: String(Math.max(1, os.availableParallelism() - 1)),
    ...serviceEnvOverrides,
    ...extra,
  };
}

/**
 * Node's own flags from `npm start` (package.json), so the bench runs the service with
 * the heap settings it is deployed with.
 */
const deployedNodeFlags = JSON.parse(fs.readFileSync(new URL('package.json', root), 'utf8'))
  .scripts.start.split(/\s+/)
  .filter((arg) => arg.startsWith('--'));

/** `launch`: startNode's `wrapper` and `readyWithinMs`, for a server run under callgrind. */
async function startService(databaseUrl, name, extra = {}, nodeOptions = [], launch = {}) {
  const port = await freePort();
  return startNode({
    args: [new URL('dist/src/main.js', appRoot).pathname],
    env: serviceEnv(databaseUrl, extra),
    logFile: new URL(`${name}.log`, out).pathname,
    port,
    nodeOptions: [...deployedNodeFlags, ...nodeOptions],
    ...launch,
  });
}

/** `database`: { DATABASE_URL } or { SQLITE_FILE }. */
async function startBaseline(database, nodeOptions = [], launch = {}) {
  const port = await freePort();
  return startNode({ args: [new URL('baseline.mjs', here).pathname], env: { ...database, JWT_SECRET: secret, HOST: '127.0.0.1', NODE_ENV: 'production' }, logFile: new URL('baseline.log', out).pathname, port, nodeOptions, ...launch });
}

/** Both servers must give the same answers, or the comparison means nothing. */
async function checkSameAnswers(kinds, servicePort, baselinePort) {
  const next = mixSequence(kinds, 4242);
  const fetchJson = async (port, r) => {
    const res = await fetch(`http://127.0.0.1:${port}${r.path}`, {
      method: r.method,
      headers: { Authorization: `Bearer ${tokens[r.role]}`, ...(r.body ? { 'Content-Type': 'application/json' } : {}) },
      body: r.body ? JSON.stringify(r.body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  const checked = {};
  for (let i = 0; i < 20 * Object.keys(kinds).length; i++) {
    const r = next();
    const [a, b] = await Promise.all([fetchJson(servicePort, r), fetchJson(baselinePort, r)]);
    if (a.status !== 200 || !isDeepStrictEqual(a, b)) {
      throw new Error(`service and baseline disagree on ${r.name} ${JSON.stringify(r.body ?? r.path)}:\n${JSON.stringify(a).slice(0, 600)}\n${JSON.stringify(b).slice(0, 600)}`);
    }
    checked[r.name] = (checked[r.name] ?? 0) + (a.body.results?.length ?? a.body.contents?.length ?? 0);
  }
  log('service and baseline agree on', Object.entries(checked).map(([k, n]) => `${k} (${n} rows)`).join(', '));
}

/**
 * One closed-loop round against `side`, with the CPU each process of `pids` spent per
 * request: where the machine's two cores went.
 */
async function measure(side, next, secs, pids, conns = connections) {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const r = await closedLoop({ url: `http://127.0.0.1:${side.port}`, next, tokens, connections: conns, seconds: secs });
  const requests = r.rps * secs;
  r.cpuMsPerRequest = Object.fromEntries(
    Object.entries(pids).filter(([, pid]) => pid !== undefined).map(([k, pid]) => [k, Math.round(((cpuSeconds(pid) - before[k]) * 1e6) / requests) / 1000]),
  );
  return r;
}

/**
 * One pair: each side runs twice, half of `secs` each time, in the order A B B A, where A
 * is `first`; each side's two halves are joined into one round (req/s over both, CPU per
 * request over both, percentiles over every answer). Both sides get the first half's
 * requests (`seeds[0]`), then both the second's. Why A B B A and not A B: on this VM a
 * round run right after the other side's is slower, whichever side it is, and the
 * machine's speed drifts within seconds; A B B A puts each side once in each place and
 * cancels a drift that is steady over the pair (scripts/bench/README.md, seventh session).
 */
async function pairRounds(sides, first, makeNext, seeds, secs, mysqld) {
  const second = first === 'service' ? 'baseline' : 'service';
  const halves = { service: [], baseline: [] };
  for (const [side, seed] of [[first, seeds[0]], [second, seeds[0]], [second, seeds[1]], [first, seeds[1]]]) {
    halves[side].push(await measure(sides[side], makeNext(seed), secs / 2, pidsOf(sides[side], mysqld)));
  }
  const join = ([x, y]) => {
    const r = joinRounds(x, y);
    const nx = x.raw.latencies.length;
    const ny = y.raw.latencies.length;
    r.cpuMsPerRequest = Object.fromEntries(Object.keys(x.cpuMsPerRequest).map((k) => [k, Math.round(((x.cpuMsPerRequest[k] * nx + y.cpuMsPerRequest[k] * ny) / (nx + ny)) * 1000) / 1000]));
    return r;
  };
  return { service: join(halves.service), baseline: join(halves.baseline) };
}

/** Service first in odd pairs, baseline first in even ones. */
const firstOf = (i) => (i % 2 === 1 ? 'service' : 'baseline');

const pidsOf = (side, mysqld) => ({ server: side.child.pid, ...(mysqld ? { mysqld } : {}), loadGenerator: process.pid });

function reportBad(label, r) {
  const bad = Object.entries(r.statuses).filter(([st]) => st !== '200');
  if (bad.length > 0 || r.errors > 0) log(`  ${label}: non-200 ${JSON.stringify(Object.fromEntries(bad))}, errors ${r.errors}`);
}

/** The whole mix in alternating pairs (pairRounds); the figures the README's first table gives. */
async function mixRounds(sides, kinds, mysqld, label) {
  const rounds_ = [];
  log(`${label}: warm-up ${warmup} s each`);
  await measure(sides.service, mixSequence(kinds, 1), warmup, pidsOf(sides.service, mysqld));
  await measure(sides.baseline, mixSequence(kinds, 1), warmup, pidsOf(sides.baseline, mysqld));
  for (let i = 1; i <= rounds; i++) {
    const { service: a, baseline: b } = await pairRounds(sides, firstOf(i), (seed) => mixSequence(kinds, seed), [100 + i, 150 + i], seconds, mysqld);
    const pair = { round: i, service: a, baseline: b, ratio: { rps: ratio(a.rps, b.rps), p50: ratio(a.p50, b.p50), p99: ratio(a.p99, b.p99) } };
    rounds_.push(pair);
    log(`${label} round ${i}: service ${a.rps} req/s p50 ${a.p50} p99 ${a.p99} | baseline ${b.rps} req/s p50 ${b.p50} p99 ${b.p99} | ratios rps ${pair.ratio.rps} p99 ${pair.ratio.p99}`);
    log(`  CPU ms per request: service ${JSON.stringify(a.cpuMsPerRequest)} | baseline ${JSON.stringify(b.cpuMsPerRequest)}`);
    reportBad('service', a);
    reportBad('baseline', b);
  }
  // CPU time per request, median over the rounds: steadier than req/s when other work
  // shares the machine, and what req/s would follow on a machine of its own.
  const cpuOf = (side) => {
    const keys = Object.keys(rounds_[0][side].cpuMsPerRequest);
    return Object.fromEntries(keys.map((k) => [k, median(rounds_.map((r) => r[side].cpuMsPerRequest[k]))]));
  };
  const total = (c) => Object.values(c).reduce((x, y) => x + y, 0);
  const cpuMsPerRequest = { service: cpuOf('service'), baseline: cpuOf('baseline') };
  cpuMsPerRequest.baselineOverService = ratio(total(cpuMsPerRequest.baseline), total(cpuMsPerRequest.service));
  return {
    rounds: rounds_,
    median: { rps: median(rounds_.map((r) => r.ratio.rps)), p50: median(rounds_.map((r) => r.ratio.p50)), p99: median(rounds_.map((r) => r.ratio.p99)) },
    cpuMsPerRequest,
  };
}

/** The kinds a per-kind phase times: `--kinds`, or every kind of the mix. */
const kindNames = (kinds) => (opts.kinds ? opts.kinds.split(',') : Object.keys(kinds));

/**
 * Each kind alone: `pairs` pairs of rounds of that kind only (pairRounds, each side
 * first in every other pair), so a kind the database answers cheaply shows what the
 * framework costs. Per kind: req/s, p99 and
 * the server's CPU per request of each side (medians), and their ratios (medians of the pairs).
 */
async function kindRounds(sides, kinds, mysqld, label) {
  const out_ = {};
  const names = kindNames(kinds);
  for (const name of names) {
    const only_ = (seed) => mixSequence(kinds, seed, [name]);
    await measure(sides.service, only_(1), 2, pidsOf(sides.service, mysqld));
    await measure(sides.baseline, only_(1), 2, pidsOf(sides.baseline, mysqld));
    const list = [];
    for (let i = 1; i <= pairs; i++) {
      const { service: a, baseline: b } = await pairRounds(sides, firstOf(i), only_, [200 + i, 250 + i], kindSeconds, mysqld);
      reportBad(`${name} service`, a);
      reportBad(`${name} baseline`, b);
      list.push({
        service: { rps: a.rps, p50: a.p50, p99: a.p99, cpuMs: a.cpuMsPerRequest },
        baseline: { rps: b.rps, p50: b.p50, p99: b.p99, cpuMs: b.cpuMsPerRequest },
        ratio: { rps: ratio(a.rps, b.rps), p99: ratio(a.p99, b.p99), serverCpu: ratio(a.cpuMsPerRequest.server, b.cpuMsPerRequest.server) },
      });
    }
    const side = (k) => ({
      rps: median(list.map((p) => p[k].rps)), p99: median(list.map((p) => p[k].p99)), serverCpuMs: median(list.map((p) => p[k].cpuMs.server)),
      ...(mysqld ? { mysqldCpuMs: median(list.map((p) => p[k].cpuMs.mysqld)) } : {}),
    });
    out_[name] = {
      service: side('service'), baseline: side('baseline'),
      ratio: { rps: median(list.map((p) => p.ratio.rps)), p99: median(list.map((p) => p.ratio.p99)), serverCpu: median(list.map((p) => p.ratio.serverCpu)) },
      pairs: list,
    };
    const k = out_[name];
    log(`${label} ${name}: service ${k.service.rps} req/s p99 ${k.service.p99} ms CPU ${k.service.serverCpuMs} ms | baseline ${k.baseline.rps} req/s p99 ${k.baseline.p99} ms CPU ${k.baseline.serverCpuMs} ms | ratios rps ${k.ratio.rps} (${list.map((p) => p.ratio.rps).join(' ')}) p99 ${k.ratio.p99} cpu ${k.ratio.serverCpu}`);
  }
  return out_;
}

/** Profiles one round of `next` on each side (after a warm-up), then stops both. */
async function profileSides(sides, makeNext, mysqld, results) {
  // V8 samples its main thread by wall clock, so a layer's time per request includes the
  // moments the thread stood preempted in it: mostly right after a socket write has woken
  // the database or the load generator on this 2-core machine.
  results.profile = {};
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  for (const name of ['service', 'baseline']) {
    await measure(sides[name], makeNext(1), warmup, pidsOf(sides[name], mysqld));
    const fromUs = nowUs();
    const r = await measure(sides[name], makeNext(2), seconds, pidsOf(sides[name], mysqld));
    results.profile[name] = { round: r, window: { fromUs, toUs: nowUs() } };
    log(`profiled ${name}: ${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, CPU ms per request ${JSON.stringify(r.cpuMsPerRequest)}`);
  }
  await stop(sides.service.child);
  await stop(sides.baseline.child);
  for (const name of ['service', 'baseline']) {
    const file = `${name}-mix.cpuprofile`;
    const { round, window } = results.profile[name];
    const summary = summarizeProfile(new URL(file, out).pathname, 25, window);
    const requests = round.rps * seconds;
    const perRequestUs = Object.fromEntries(summary.byLayer.filter((l) => l.name !== '(idle)').map((l) => [l.name, Math.round((l.ms * 1000) / requests)]));
    results.profile[name] = { round, window, file: `scripts/bench/out/${file}`, perRequestUs, ...summary };
  }
}

/**
 * Each kind with both sides loaded at once: `pairs` rounds of `kindSeconds`, half the
 * connections on each side, the same requests on both. Alternating rounds give each side
 * the machine alone, but on this kind of VM the machine's speed moves every process's CPU
 * per request by up to half within seconds, and a pair's two rounds see different machines
 * (scripts/bench/README.md, sixth session). Loaded together, the two servers share the
 * cores and whatever the machine does in that window: their CPU per request compares the
 * work each does for a request. Neither gets a core of its own, so req/s here is not the
 * closed-loop figure the targets are set on.
 */
async function sideBySideRounds(sides, kinds, label) {
  const out_ = {};
  const names = kindNames(kinds);
  const half = Math.max(1, Math.round(connections / 2));
  // The same seed on both sides: the same requests in the same order.
  const both = (name, seed, secs) => Promise.all(['service', 'baseline'].map((side) =>
    measure(sides[side], mixSequence(kinds, seed, [name]), secs, { server: sides[side].child.pid }, half)));
  for (const name of names) {
    await both(name, 1, 2);
    const list = [];
    for (let i = 1; i <= pairs; i++) {
      const [a, b] = await both(name, 300 + i, kindSeconds);
      reportBad(`${name} service`, a);
      reportBad(`${name} baseline`, b);
      list.push({
        service: { rps: a.rps, cpuMs: a.cpuMsPerRequest.server },
        baseline: { rps: b.rps, cpuMs: b.cpuMsPerRequest.server },
        ratio: { rps: ratio(a.rps, b.rps), serverCpu: ratio(a.cpuMsPerRequest.server, b.cpuMsPerRequest.server) },
      });
    }
    const side = (k) => ({ rps: median(list.map((p) => p[k].rps)), serverCpuMs: median(list.map((p) => p[k].cpuMs)) });
    out_[name] = {
      service: side('service'), baseline: side('baseline'),
      ratio: { rps: median(list.map((p) => p.ratio.rps)), serverCpu: median(list.map((p) => p.ratio.serverCpu)) },
      rounds: list,
    };
    const k = out_[name];
    log(`${label} side by side ${name}: service ${k.service.rps} req/s CPU ${k.service.serverCpuMs} ms | baseline ${k.baseline.rps} req/s CPU ${k.baseline.serverCpuMs} ms | ratios rps ${k.ratio.rps} cpu ${k.ratio.serverCpu} (${list.map((p) => p.ratio.serverCpu).join(' ')})`);
  }
  return out_;
}

const profiled = (side) => (opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${out.pathname}`, `--cpu-prof-name=${side}-mix.cpuprofile`] : []);
const profileNext = (kinds) => (seed) => (opts['profile-kind'] ? mixSequence(kinds, seed, [opts['profile-kind']]) : mixSequence(kinds, seed));

async function mixBench(mainUrl, results) {
  const kinds = mixKinds(main);
  const service = await startService(mainUrl, 'service', {}, profiled('service'));
  results.startup.push({ where: 'mix (1M rows)', readyMs: service.readyMs });
  log(`service ready in ${service.readyMs} ms (pid ${service.child.pid})`);
  const baseline = await startBaseline({ DATABASE_URL: mainUrl }, profiled('baseline'));
  log(`baseline ready in ${baseline.readyMs} ms`);
  const sides = { service, baseline };
  await checkSameAnswers(kinds, service.port, baseline.port);

  const conn = await mysql.createConnection({ ...connectionOf(serverUrl), database: undefined });
  const mysqld = await mysqldPid(conn);
  await conn.end();
  if (opts.profile) return profileSides(sides, profileNext(kinds), mysqld, results);
  if (only.has('mix')) {
    Object.assign(results, await mixRounds(sides, kinds, mysqld, 'mysql mix'));
    results.rss.serviceUnderMixMb = peakRssMb(service.child.pid);
    results.rss.baselineUnderMixMb = peakRssMb(baseline.child.pid);
  }
  if (only.has('kinds')) results.kinds = await kindRounds(sides, kinds, mysqld, 'mysql');
  if (only.has('sidebyside')) (results.sideBySide ??= {}).mysql = await sideBySideRounds(sides, kinds, 'mysql');
  await stop(baseline.child);
  if (only.has('flood')) await flood(service, kinds, results);
  await stop(service.child);
}

/** The embedded default: both servers on one 1M-row SQLite file, the database inside each process. */
async function sqliteBench(results) {
  results.seed.sqlite = await seedSqlite(sqliteFile, main, { root: appRoot, log: (m) => log(`seed sqlite: ${m}`) });
  const kinds = mixKinds(main);
  const service = await startService('', 'service-sqlite', { SQLITE_FILE: sqliteFile }, profiled('service'));
  results.startup.push({ where: 'sqlite (1M rows)', readyMs: service.readyMs });
  const baseline = await startBaseline({ SQLITE_FILE: sqliteFile }, profiled('baseline'));
  log(`sqlite: service ready in ${service.readyMs} ms, baseline in ${baseline.readyMs} ms`);
  const sides = { service, baseline };
  await checkSameAnswers(kinds, service.port, baseline.port);
  if (opts.profile) return profileSides(sides, profileNext(kinds), undefined, results);
  if (only.has('sqlite')) {
    const sqlite = { ...(await mixRounds(sides, kinds, undefined, 'sqlite mix')), kinds: await kindRounds(sides, kinds, undefined, 'sqlite') };
    sqlite.rss = { serviceMb: peakRssMb(service.child.pid), baselineMb: peakRssMb(baseline.child.pid) };
    results.sqlite = sqlite;
  }
  if (only.has('sidebyside')) (results.sideBySide ??= {}).sqlite = await sideBySideRounds(sides, kinds, 'sqlite');
  await stop(baseline.child);
  await stop(service.child);
}

/**
 * Instructions per request of each kind on each engine (instructions.mjs): both servers under
 * callgrind, started afresh for each kind, warmed as the closed-loop rounds warm them (the
 * mix, then the kind), then three windows of `--instruction-requests` requests of the kind
 * counted. The two sides run at once: a count does not depend on what else runs.
 */
async function instructionBench(mainUrl, results) {
  log(`instructions: ${await checkValgrind()}`);
  results.seed.sqlite = await seedSqlite(sqliteFile, main, { root: appRoot, log: (m) => log(`seed sqlite: ${m}`) });
  const kinds = mixKinds(main);
  const names = kindNames(kinds);
  const counted = Number(opts['instruction-requests']);
  // Seconds of the mix, then of the kind, before counting three windows of the kind
  // (instructions.mjs). Under callgrind a cheap request takes some 50 times as long, and
  // with less warm-up the count still held V8's compiling (a `point` request counted
  // 1.7-2.0 M instructions after 1,300 requests, 0.6 M after 10,000).
  const warm = { mixSeconds: 30, kindSeconds: 20 };
  // Four connections, fewer than the pool's ten: under callgrind a request that waited for a
  // pooled connection behind 15 others outlived the pool's acquire timeout (a 503).
  const loadConnections = 4;
  // callgrind_control finds a process by USER and HOST; the servers run with HOST=127.0.0.1.
  const controlEnv = { ...process.env, HOST: '127.0.0.1' };
  const windows = 3;
  const instructions = { requests: counted, windows, connections: loadConnections, warmup: warm, mysql: {}, sqlite: {} };
  const file = (side) => new URL(`callgrind-${side}.out`, out).pathname;
  for (const engine of ['mysql', 'sqlite']) {
    for (const name of names) {
      // A dump is <file>.<n>, numbered from 1 in each process: none may be left from the last kind.
      for (const f of fs.readdirSync(out)) if (/^callgrind-\w+\.out/.test(f)) fs.rmSync(new URL(f, out));
      const launch = (side) => ({ wrapper: callgrindWrapper(file(side)), readyWithinMs: 180_000 });
      const service = engine === 'mysql'
        ? await startService(mainUrl, 'callgrind-service', {}, [], launch('service'))
        : await startService('', 'callgrind-service', { SQLITE_FILE: sqliteFile }, [], launch('service'));
      const baseline = await startBaseline(engine === 'mysql' ? { DATABASE_URL: mainUrl } : { SQLITE_FILE: sqliteFile }, [], launch('baseline'));
      const sides = { service, baseline };
      const count = async (side) => {
        const load = (next, length) => closedLoop({ url: `http://127.0.0.1:${sides[side].port}`, next, tokens, connections: loadConnections, ...length });
        await load(mixSequence(kinds, 1), { seconds: warm.mixSeconds });
        await load(mixSequence(kinds, 2, [name]), { seconds: warm.kindSeconds });
        let seed = 3;
        const counts = await countWindows(sides[side], controlEnv, file(side), async () => {
          const r = await load(mixSequence(kinds, seed++, [name]), { amount: counted });
          if (r.statuses['200'] !== counted) throw new Error(`${engine} ${name} ${side} under callgrind: ${JSON.stringify(r.statuses)}, errors ${r.errors}`);
          return counted;
        }, windows);
        await stop(sides[side].child);
        return counts;
      };
      const [a, b] = await Promise.all([count('service'), count('baseline')]);
      instructions[engine][name] = { service: a.perRequest, baseline: b.perRequest, ratio: ratio(a.perRequest, b.perRequest), windows: { service: a.windows, baseline: b.windows } };
      log(`instructions ${engine} ${name}: service ${a.perRequest} a request (windows ${a.windows.join(', ')}), baseline ${b.perRequest} (${b.windows.join(', ')}), ratio ${ratio(a.perRequest, b.perRequest)}`);
    }
  }
  results.instructions = instructions;
}

/**
 * Query latency at a quarter of the service's capacity, idle and during a flood of
 * registrations, alternating idle/flood windows like the A/B rounds (other work on the
 * machine moves a single window's p99 a lot); `--flood-windows` pairs of them; the ratio
 * is the median over the pairs.
 */
async function flood(service, kinds, results) {
  const url = `http://127.0.0.1:${service.port}`;
  const rate = Number(opts['flood-rate']) || Math.max(20, Math.round((await mixCapacity(url, kinds, results)) / 4));
  log(`flood: query mix paced at ${rate} req/s, ${floodWindows} x (${seconds} s idle, ${seconds} s during a flood of registrations from 32 connections)`);
  const tag = Date.now().toString(36);
  let n = 0;
  const windows = [];
  const registrations = [];
  for (let i = 0; i < floodWindows; i++) {
    const idle = await paced({ url, next: mixSequence(kinds, 7 + i), tokens, rate, seconds });
    const floodRun = closedLoop({
      url,
      tokens,
      connections: 32,
      seconds: seconds + 2,
      next: () => ({ name: 'register', method: 'POST', path: '/register', role: 'admin', body: { userName: `flood${tag}x${n++}`, password: 'correct horse battery staple' } }),
    });
    // The flood's first second fills the hash queue; the window starts once it is steady.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const during = await paced({ url, next: mixSequence(kinds, 7 + i), tokens, rate, seconds });
    const r = await floodRun;
    registrations.push({ rps: r.rps, p50: r.p50, p99: r.p99, statuses: r.statuses });
    windows.push({ idle, duringFlood: during, p99Ratio: ratio(during.p99, idle.p99) });
    log(`flood ${i + 1}: query p99 idle ${idle.p99} ms, during flood ${during.p99} ms (x${ratio(during.p99, idle.p99)}); registrations ${r.rps}/s ${JSON.stringify(r.statuses)}`);
    // Let the queue of hashes drain before the next idle window.
    await waitIdle(service.child.pid);
  }
  results.flood = {
    rate,
    hashConcurrency: serviceEnv('').HASH_CONCURRENCY,
    windows,
    registrations,
    idle: { p50: median(windows.map((w) => w.idle.p50)), p99: median(windows.map((w) => w.idle.p99)) },
    duringFlood: { p50: median(windows.map((w) => w.duringFlood.p50)), p99: median(windows.map((w) => w.duringFlood.p99)) },
    p99Ratio: median(windows.map((w) => w.p99Ratio)),
  };
  results.rss.serviceWithFloodMb = peakRssMb(service.child.pid);
  // The service hashes in a child process (design.md §5): its memory counts too.
  results.rss.hasherWithFloodMb = childPids(service.child.pid).reduce((mb, pid) => mb + peakRssMb(pid), 0);
  await cleanFloodUsers();
}

/**
 * The service's req/s on the mix: the median of the mix rounds, or, when the flood runs
 * without them (`--only flood`), one closed-loop round of the mix after a warm-up, so the
 * flood's pace is the same quarter of capacity either way.
 */
async function mixCapacity(url, kinds, results) {
  if (results.rounds.length) return median(results.rounds.map((r) => r.service.rps));
  await closedLoop({ url, next: mixSequence(kinds, 1), tokens, connections, seconds: warmup });
  const r = await closedLoop({ url, next: mixSequence(kinds, 2), tokens, connections, seconds });
  log(`flood: service capacity on the mix ${r.rps} req/s`);
  return r.rps;
}

/**
 * Resolves once the service is idle again: the flood's clients are gone, but the hashes
 * they queued (up to 31 x 0.3 s) still run after them, in the service's hashing process.
 * Idle = the service and its children use under 10% of a core for 1 s.
 */
async function waitIdle(pid) {
  const cpu = () => [pid, ...childPids(pid)].reduce((s, p) => s + cpuSeconds(p), 0);
  for (let i = 0; i < 60; i++) {
    const before = cpu();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (cpu() - before < 0.1) return;
  }
}

async function cleanFloodUsers() {
  const conn = await mysql.createConnection({ ...connectionOf(serverUrl), database: main.database });
  await conn.query("DELETE FROM app_user WHERE user_name LIKE 'flood%'");
  await conn.end();
}

/**
 * p50 of one indexed lookup, one request at a time, at each table size: a service per
 * database (started one after the other, each start timed), then windows alternating
 * between them, so that other work on the machine falls on all three alike.
 */
async function scale(urls, results) {
  const services = [];
  for (const size of scaleSizes) {
    const service = await startService(urls[size.label], `service-${size.label}`);
    results.startup.push({ where: `scale ${size.label}`, readyMs: service.readyMs });
    services.push({ size, service, url: `http://127.0.0.1:${service.port}`, kinds: indexedKind(size), windows: [] });
  }
  try {
    for (const s of services) await closedLoop({ url: s.url, next: mixSequence(s.kinds, 1), tokens, connections: 1, seconds: Math.max(2, Math.round(warmup / 2)) });
    const windows = opts.quick ? 1 : 3;
    for (let i = 0; i < windows; i++) {
      for (const s of services) s.windows.push(await closedLoop({ url: s.url, next: mixSequence(s.kinds, 10 + i), tokens, connections: 1, seconds: Math.max(3, Math.round(seconds / 3)) }));
    }
    for (const s of services) {
      const w = s.windows;
      results.scale[s.size.label] = { rows: s.size.soggettoRecapito, p50: median(w.map((r) => r.p50)), p99: median(w.map((r) => r.p99)), rps: median(w.map((r) => r.rps)), windows: w.map((r) => ({ p50: r.p50, p99: r.p99, rps: r.rps })) };
      log(`scale ${s.size.label}: p50 ${results.scale[s.size.label].p50} ms (windows ${w.map((r) => r.p50).join(', ')}), ready in ${s.service.readyMs} ms`);
    }
  } finally {
    for (const s of services) await stop(s.service.child);
  }
  results.scale.p50Ratio1MTo10k = ratio(results.scale['1M'].p50, results.scale['10k'].p50);
}

/** Each search shape of scale-queries.mjs at every size, on MySQL and on SQLite. */
async function scaleQueries(urls, results) {
  results.scaleQueries = { mysql: {}, sqlite: {} };
  for (const size of scaleSizes) {
    const conn = await mysql.createConnection({ ...connectionOf(urls[size.label]) });
    await conn.query('ANALYZE TABLE soggetto_recapito');
    await conn.end();
    const file = new URL(`scale-${size.label}.sqlite`, out).pathname;
    await seedSqlite(file, size, { root: appRoot, log: (m) => log(`seed sqlite ${size.label}: ${m}`) });
    for (const [engine, env] of [['mysql', {}], ['sqlite', { DATABASE_URL: '', SQLITE_FILE: file }]]) {
      const service = await startService(engine === 'mysql' ? urls[size.label] : '', `scale-queries-${engine}-${size.label}`, env);
      try {
        results.scaleQueries[engine][size.label] = await timeShapes(`http://127.0.0.1:${service.port}`, tokens.admin, size.soggettoRecapito, { samples: opts.quick ? 5 : 15 });
        log(`scale queries ${engine} ${size.label}: done`);
      } finally {
        await stop(service.child);
      }
    }
  }
}

function targets(results) {
  const t = [];
  const add = (name, value, limit, met) => t.push({ name, value, limit, met });
  const engines = [['mysql', results], ['sqlite', results.sqlite ?? {}]];
  for (const [engine, r] of engines) {
    if (r.median) {
      add(`${engine}: mix throughput / baseline (median ratio)`, r.median.rps, '>= 0.9', r.median.rps >= 0.9);
      add(`${engine}: mix p99 / baseline (median ratio)`, r.median.p99, '<= 1.3', r.median.p99 <= 1.3);
    }
    // The cheapest kind is held to the framework's own overhead; every other kind to 0.9.
    for (const [name, k] of Object.entries(r.kinds ?? {})) {
      if (name === 'point') {
        add(`${engine}: point lookups throughput / baseline`, k.ratio.rps, '>= 0.85', k.ratio.rps >= 0.85);
        add(`${engine}: point lookups p99 / baseline`, k.ratio.p99, '<= 1.3', k.ratio.p99 <= 1.3);
        add(`${engine}: point lookups server CPU per request / baseline`, k.ratio.serverCpu, '<= 1.25', k.ratio.serverCpu <= 1.25);
      } else {
        add(`${engine}: ${name} throughput / baseline`, k.ratio.rps, '>= 0.9', k.ratio.rps >= 0.9);
      }
    }
  }
  if (results.scaleQueries) scaleTargets(results.scaleQueries, add);
  if (results.scale.p50Ratio1MTo10k !== undefined) add('indexed p50 at 1M / at 10k', results.scale.p50Ratio1MTo10k, '<= 1.5', results.scale.p50Ratio1MTo10k <= 1.5);
  if (results.rss.serviceUnderMixMb !== undefined) add('service peak RSS under the mix (MB)', results.rss.serviceUnderMixMb, '< 200', results.rss.serviceUnderMixMb < 200);
  if (results.startup.length) {
    const worst = Math.max(...results.startup.map((s) => s.readyMs));
    add('start to /ready, worst of all starts (ms)', worst, '< 1500', worst < 1500);
  }
  if (results.flood) add('query p99 during registration flood / idle', results.flood.p99Ratio, '<= 2', results.flood.p99Ratio <= 2);
  return t;
}

async function mysqlFacts() {
  const conn = await mysql.createConnection({ ...connectionOf(serverUrl), database: undefined });
  const [[v]] = await conn.query('SELECT VERSION() AS version, @@innodb_buffer_pool_size AS bufferPool');
  await conn.end();
  return { version: v.version, innodbBufferPoolMb: Number(v.bufferPool) / 2 ** 20 };
}

let appRoot = root;

async function mainRun() {
  const started = Date.now();
  appRoot = process.env.BENCH_APP_DIR ? new URL(`file://${process.env.BENCH_APP_DIR.replace(/\/?$/, '/')}`) : snapshotBuild();
  if (only.has('load')) await loadPhase({ appRoot, serverUrl, out, log, sizes: opts['load-rows'].split(',').map(Number), resultsFile: new URL('results-load.json', here).pathname });
  if (only.size === 1 && only.has('load')) return;
  const results = {
    date: new Date().toISOString(),
    serviceEnv: { ...serviceEnv('(url)'), JWT_SECRET: '(bench secret)' },
    serviceNodeFlags: deployedNodeFlags,
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, mysql: await mysqlFacts() },
    config: { rounds, seconds, connections, warmup, pairs, kindSeconds, floodWindows, sizes: main, mix: Object.keys(mixKinds(main)) },
    seed: {},
    rounds: [],
    median: undefined,
    rss: {},
    startup: [],
    scale: {},
    flood: undefined,
  };
  const urls = {};
  for (const size of scaleSizes) {
    if (size.label !== '1M' && !only.has('scale')) continue;
    const { url, stats } = await seedDatabase(serverUrl, size.database, size, { root: appRoot, log: (m) => log(`seed ${size.database}: ${m}`) });
    urls[size.label] = url;
    results.seed[size.database] = stats;
  }
  if (opts.profile && opts.engine === 'sqlite') await sqliteBench(results);
  else if (only.has('mix') || only.has('kinds') || only.has('flood') || only.has('sidebyside') || opts.profile) await mixBench(urls['1M'], results);
  if (!opts.profile && (only.has('sqlite') || only.has('sidebyside'))) await sqliteBench(results);
  if (!opts.profile && only.has('instructions')) await instructionBench(urls['1M'], results);
  if (opts.profile) {
    const summaryFile = new URL('profile.json', out);
    fs.writeFileSync(summaryFile, JSON.stringify(results.profile, null, 2) + '\n');
    console.log(`profiles: ${results.profile.service.file}, ${results.profile.baseline.file}; summaries in ${summaryFile.pathname}`);
    const layers = [...new Set(Object.values(results.profile).flatMap((p) => Object.keys(p.perRequestUs)))];
    console.log('\nMain-thread µs per request by layer, measured round only (wall clock: running or preempted):');
    console.log('layer'.padEnd(32), 'service'.padStart(8), 'baseline'.padStart(9));
    for (const l of layers) console.log(l.padEnd(32), String(results.profile.service.perRequestUs[l] ?? 0).padStart(8), String(results.profile.baseline.perRequestUs[l] ?? 0).padStart(9));
    const sum = (side) => Object.values(results.profile[side].perRequestUs).reduce((a, b) => a + b, 0);
    console.log('total'.padEnd(32), String(sum('service')).padStart(8), String(sum('baseline')).padStart(9));
    return;
  }
  if (only.has('scale')) {
    await scale(urls, results);
    await scaleQueries(urls, results);
  }
  results.targets = targets(results);
  results.durationS = Math.round((Date.now() - started) / 1000);
  fs.writeFileSync(opts.results, JSON.stringify(results, null, 2) + '\n');
  fs.writeFileSync(opts.results.replace(/\.json$/, '.svg'), renderChart(results));
  printSummary(results);
}

function printSummary(results) {
  console.log('\nround  service req/s  p50   p99  | baseline req/s  p50   p99  | ratio req/s  p50    p99');
  for (const r of results.rounds) {
    const f = (x) => String(x).padStart(6);
    console.log(`${String(r.round).padStart(5)}  ${f(r.service.rps)}  ${f(r.service.p50)} ${f(r.service.p99)} | ${f(r.baseline.rps)}  ${f(r.baseline.p50)} ${f(r.baseline.p99)} | ${f(r.ratio.rps)} ${f(r.ratio.p50)} ${f(r.ratio.p99)}`);
  }
  if (results.median) console.log(`median ratios: req/s ${results.median.rps}, p50 ${results.median.p50}, p99 ${results.median.p99}`);
  for (const [engine, kinds] of [['MySQL', results.kinds], ['SQLite', results.sqlite?.kinds]]) {
    if (!kinds) continue;
    console.log(`\n${engine}, each kind alone (medians of ${pairs} pairs; CPU = the server process, ms per request${engine === 'MySQL' ? ', mysqld apart' : ', database included'}):`);
    console.log('kind'.padEnd(20), 'service req/s'.padStart(13), 'p99'.padStart(7), 'CPU'.padStart(7), '| baseline req/s'.padStart(16), 'p99'.padStart(7), 'CPU'.padStart(7), '| req/s'.padStart(8), 'p99'.padStart(6), 'CPU'.padStart(6));
    for (const [name, k] of Object.entries(kinds)) {
      const f = (x, w) => String(x).padStart(w);
      console.log(name.padEnd(20), f(k.service.rps, 13), f(k.service.p99, 7), f(k.service.serverCpuMs, 7), '|', f(k.baseline.rps, 14), f(k.baseline.p99, 7), f(k.baseline.serverCpuMs, 7), '|', f(k.ratio.rps, 6), f(k.ratio.p99, 6), f(k.ratio.serverCpu, 6));
    }
  }
  if (results.instructions) {
    console.log(`\nInstructions per request under callgrind (user space, every thread; ${results.instructions.windows} x ${results.instructions.requests} requests of each kind, after a warm-up):`);
    console.log('kind'.padEnd(20), 'engine'.padEnd(7), 'service'.padStart(10), 'baseline'.padStart(10), 'ratio'.padStart(7));
    for (const engine of ['mysql', 'sqlite']) {
      for (const [name, k] of Object.entries(results.instructions[engine])) console.log(name.padEnd(20), engine.padEnd(7), String(k.service).padStart(10), String(k.baseline).padStart(10), String(k.ratio).padStart(7));
    }
  }
  if (results.sideBySide) {
    console.log(`\nEach kind with both servers loaded at once (medians of ${pairs} rounds; CPU = the server process, ms per request):`);
    console.log('kind'.padEnd(20), 'engine'.padEnd(7), 'service CPU'.padStart(12), 'baseline CPU'.padStart(13), 'CPU ratio'.padStart(10), 'req/s ratio'.padStart(12));
    for (const [engine, kinds] of Object.entries(results.sideBySide)) {
      for (const [name, k] of Object.entries(kinds)) console.log(name.padEnd(20), engine.padEnd(7), String(k.service.serverCpuMs).padStart(12), String(k.baseline.serverCpuMs).padStart(13), String(k.ratio.serverCpu).padStart(10), String(k.ratio.rps).padStart(12));
    }
  }
  if (results.sqlite?.median) console.log(`SQLite mix median ratios: req/s ${results.sqlite.median.rps}, p99 ${results.sqlite.median.p99}`);
  if (results.cpuMsPerRequest) {
    const c = results.cpuMsPerRequest;
    console.log(`CPU ms per request (median): service ${JSON.stringify(c.service)}, baseline ${JSON.stringify(c.baseline)}; baseline/service total ${c.baselineOverService}`);
  }
  if (results.rss.serviceUnderMixMb !== undefined) console.log(`peak RSS: service ${results.rss.serviceUnderMixMb} MB under the mix${results.rss.serviceWithFloodMb ? `, ${results.rss.serviceWithFloodMb} MB after the flood (its hashing process ${results.rss.hasherWithFloodMb} MB)` : ''}; baseline ${results.rss.baselineUnderMixMb} MB`);
  if (results.startup.length) console.log(`start to /ready: ${results.startup.map((s) => `${s.readyMs} ms (${s.where})`).join(', ')}`);
  if (results.scaleQueries) printScale(results.scaleQueries);
  if (results.scale['1M']) console.log(`indexed p50: ${['10k', '100k', '1M'].map((k) => `${k} ${results.scale[k].p50} ms`).join(', ')}`);
  if (results.flood) console.log(`flood: query p99 ${results.flood.idle.p99} ms idle, ${results.flood.duringFlood.p99} ms during the flood (medians of ${results.flood.windows.length} windows; median ratio ${results.flood.p99Ratio})`);
  console.log('\ntargets:');
  for (const t of results.targets) console.log(`  ${t.met ? 'MET    ' : 'NOT MET'} ${t.name}: ${t.value} (${t.limit})`);
  console.log(`\nwritten: ${opts.results} and .svg (${results.durationS} s)`);
}

mainRun().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
