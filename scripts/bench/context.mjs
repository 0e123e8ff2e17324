// What every phase of the bench shares: the options, the sizes, the tokens, and how the
// service and the baseline are started (the service as `npm start` runs it).
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import jwt from 'jsonwebtoken';
import mysql from 'mysql2/promise';
import { freePort, startNode } from './processes.mjs';
import { connectionOf } from './seed.mjs';

export const root = new URL('../../', import.meta.url);
export const here = new URL('./', import.meta.url);
export const out = new URL('out/', here);
fs.mkdirSync(out, { recursive: true });

/**
 * The bench runs a private copy of the build (dist/ and generated/ under out/app/), so a
 * rebuild elsewhere in the tree (`make build` empties dist/) cannot pull files from under
 * a running service. Modules still resolve from the repository's node_modules.
 */
export function snapshotBuild() {
  const app = new URL('app/', out);
  fs.rmSync(app, { recursive: true, force: true });
  for (const dir of ['dist/src', 'dist/generated', 'generated']) {
    if (!fs.existsSync(new URL(dir, root))) throw new Error(`${dir} is missing: build first (make bench does)`);
    fs.cpSync(new URL(dir, root), new URL(dir, app), { recursive: true });
  }
  return app;
}

export const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    warmup: { type: 'string', default: '10' },
    only: { type: 'string', default: 'mix,kinds,sqlite,scale,flood,load' },
    // The sizes of the generated files the load phase loads (phase-load.mjs).
    'load-rows': { type: 'string', default: '1000000,10000000' },
    // 9 pairs per kind, not the 5 the targets ask for at least: on this 2-core VM one pair's
    // ratio moves by ±20 % with the machine's own speed (every process's CPU per request rises
    // and falls together), and the median of 9 holds still better.
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
    help: { type: 'boolean', default: false },
  },
});
export const rounds = opts.quick ? 2 : Number(opts.rounds);
export const seconds = opts.quick ? 5 : Number(opts.seconds);
export const warmup = opts.quick ? 2 : Number(opts.warmup);
export const connections = Number(opts.connections);
export const pairs = opts.quick ? 2 : Number(opts.pairs);
export const kindSeconds = opts.quick ? 3 : Number(opts['kind-seconds']);
export const floodWindows = opts.quick ? 2 : Number(opts['flood-windows']);
export const sqliteFile = new URL('bench.sqlite', out).pathname;
export const only = new Set(opts.only.split(','));

export const serverUrl = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
export const secret = 'bench-secret-bench-secret-bench-secret-0123456789';
export const main = { database: 'impianti_bench', soggettoRecapito: 1_000_000, caratteristicaGruppo: 100_000, impianti: 1000, filesPerRoot: 12 };
export const scaleSizes = [
  { label: '10k', database: 'impianti_bench_10k', soggettoRecapito: 10_000, caratteristicaGruppo: 1000, impianti: 10, filesPerRoot: 4 },
  { label: '100k', database: 'impianti_bench_100k', soggettoRecapito: 100_000, caratteristicaGruppo: 1000, impianti: 10, filesPerRoot: 4 },
  { label: '1M', ...main },
];

export const log = (...args) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);
export const ratio = (a, b) => Math.round((a / b) * 1000) / 1000;
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return Math.round(m * 10000) / 10000;
};

export const token = (roles) =>
  jwt.sign({ sub: '1', sid: 'bench', roles }, secret, { algorithm: 'HS256', issuer: 'impianti-api', audience: 'impianti-api', expiresIn: '4h' });
export const tokens = { admin: token(['Admin']), apiUser: token(['ApiUser']) };

export const serviceEnvOverrides = Object.fromEntries(opts['service-env'].split(',').filter(Boolean).map((kv) => kv.split('=')));

/** The service as deployed: built, production mode, logs at warn. */
export function serviceEnv(databaseUrl, extra = {}) {
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
export const deployedNodeFlags = JSON.parse(fs.readFileSync(new URL('package.json', root), 'utf8'))
  .scripts.start.split(/\s+/)
  .filter((arg) => arg.startsWith('--'));

/** `launch`: startNode's `wrapper` and `readyWithinMs`, for a server run under callgrind. */
export async function startService(databaseUrl, name, extra = {}, nodeOptions = [], launch = {}) {
  const port = await freePort();
  return startNode({
    args: [new URL('dist/src/main.js', appRoot).pathname],
    env: serviceEnv(databaseUrl, extra),
    logFile: new URL(`${name}.log`, out).pathname,
    port,
    nodeOptions: [...deployedNodeFlags, ...nodeOptions],
    warm: ['dist/', 'generated/'].map((dir) => new URL(dir, appRoot).pathname).concat(new URL('node_modules/', root).pathname),
    ...launch,
  });
}

/** `database`: { DATABASE_URL } or { SQLITE_FILE }. */
export async function startBaseline(database, nodeOptions = [], launch = {}) {
  const port = await freePort();
  return startNode({ args: [new URL('baseline.mjs', here).pathname], env: { ...database, JWT_SECRET: secret, HOST: '127.0.0.1', NODE_ENV: 'production' }, logFile: new URL('baseline.log', out).pathname, port, nodeOptions, warm: [new URL('node_modules/', root).pathname], ...launch });
}

export async function mysqlFacts() {
  const conn = await mysql.createConnection({ ...connectionOf(serverUrl), database: undefined });
  const [[v]] = await conn.query('SELECT VERSION() AS version, @@innodb_buffer_pool_size AS bufferPool');
  await conn.end();
  return { version: v.version, innodbBufferPoolMb: Number(v.bufferPool) / 2 ** 20 };
}

export let appRoot = root;
/** Where the servers' build is read from: the snapshot of it, once the run has made one. */
export function setAppRoot(url) {
  appRoot = url;
}
