// What every phase of the bench shares: the options, the table sizes, the tokens, the
// statistics, and how the service, the floor and the baseline are started (the service as
// `npm start` runs it, from a private copy of the build).
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import jwt from 'jsonwebtoken';
import { startNode } from './processes.mjs';

export const root = new URL('../../', import.meta.url);
export const here = new URL('./', import.meta.url);
export const out = new URL('out/', here);
fs.mkdirSync(out, { recursive: true });

export const { values: opts } = parseArgs({
  options: {
    only: { type: 'string', default: 'compare,workers,scale,export,etag,live' },
    engines: { type: 'string', default: 'mysql,sqlite' },
    pairs: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '6' },
    warmup: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    'service-env': { type: 'string', default: '' },
    'load-rows': { type: 'string', default: '1000000,10000000' },
    results: { type: 'string', default: '' },
    quick: { type: 'boolean', default: false },
    summary: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

const quick = opts.quick;
export const only = new Set(opts.only.split(','));
export const engines = opts.engines.split(',');
export const pairs = quick ? 2 : Number(opts.pairs);
export const seconds = quick ? 2 : Number(opts.seconds);
export const warmup = quick ? 1 : Number(opts.warmup);
export const connections = Number(opts.connections);
/** results.json holds full default runs only; a quick or partial run writes under out/. */
const partial = quick || opts.only !== 'compare,workers,scale,export,etag,live' || opts.engines !== 'mysql,sqlite';
export const resultsFile = opts.results || new URL(partial ? `out/results-${quick ? 'quick' : 'partial'}.json` : 'results.json', here).pathname;
export const serverUrl = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

/**
 * The three table sizes (contacts, groups, impianti with their files); the largest carries
 * the comparisons. `--quick` makes every table a hundred times smaller, under names of its own.
 */
export const sizes = [
  { label: '10k', soggettoRecapito: 10_000, caratteristicaGruppo: 1000, impianti: 10, filesPerRoot: 4 },
  { label: '100k', soggettoRecapito: 100_000, caratteristicaGruppo: 1000, impianti: 10, filesPerRoot: 4 },
  { label: '1M', soggettoRecapito: 1_000_000, caratteristicaGruppo: 100_000, impianti: 1000, filesPerRoot: 12 },
].map((s) => ({
  ...s,
  ...(quick ? { soggettoRecapito: s.soggettoRecapito / 100, caratteristicaGruppo: s.caratteristicaGruppo / 10 } : {}),
  name: `${quick ? 'quick' : 'bench'}_${s.label.toLowerCase()}`,
}));
export const largest = sizes.at(-1);

export const log = (...args) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);
export const round3 = (x) => Math.round(x * 1000) / 1000;
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/** The median of a list of pair ratios, with its spread. */
export const spread = (xs) => ({ median: round3(median(xs)), min: round3(Math.min(...xs)), max: round3(Math.max(...xs)) });

export const secret = 'bench-secret-bench-secret-bench-secret-0123456789';
const token = (roles) => jwt.sign({ sub: '1', sid: 'bench', roles }, secret, { algorithm: 'HS256', issuer: 'impianti-api', audience: 'impianti-api', expiresIn: '4h' });
export const tokens = { admin: token(['Admin']), apiUser: token(['ApiUser']) };

/**
 * The build the servers run: a copy of dist/ and generated/ under out/app/, so that a
 * rebuild in the tree during a run (`make build` empties dist/) changes nothing under a
 * running service. Modules still resolve from the repository's node_modules.
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
let snapshot;
/** The snapshot of the build, made on first use. */
export const appRoot = () => (snapshot ??= snapshotBuild());

/** The Node flags of `npm start` (package.json): the service runs with its deployed heap settings. */
export const deployedNodeFlags = JSON.parse(fs.readFileSync(new URL('package.json', root), 'utf8'))
  .scripts.start.split(/\s+/)
  .filter((arg) => arg.startsWith('--'));

const serviceEnvOverrides = Object.fromEntries(opts['service-env'].split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

/** `db`: { engine: 'mysql', url } or { engine: 'sqlite', file } (seed.mjs). */
const databaseEnv = (db) => (db.engine === 'mysql' ? { DATABASE_URL: db.url } : { DATABASE_URL: '', SQLITE_FILE: db.file });

/** The service as deployed: built, production mode, logs at warn; `extra` adds to its environment. */
export function serviceEnv(db, extra = {}) {
  return { NODE_ENV: 'production', LOG_LEVEL: 'warn', HOST: '127.0.0.1', JWT_SECRET: secret, ...databaseEnv(db), ...serviceEnvOverrides, ...extra };
}

export function startService(db, name, extra = {}) {
  return startNode({
    args: [new URL('dist/src/server/main.js', appRoot()).pathname],
    env: serviceEnv(db, extra),
    logFile: new URL(`${name}.log`, out).pathname,
    nodeOptions: deployedNodeFlags,
    warm: [new URL('dist/', appRoot()).pathname, new URL('generated/', appRoot()).pathname, new URL('node_modules/', root).pathname],
  });
}

/** A hand-written side on `db`: `baseline.mjs` (bare node:http) or `floor.mjs` (express, ajv). */
function startHandWritten(file, db, name, extra = {}) {
  const env = db.engine === 'mysql' ? { DATABASE_URL: db.url } : { SQLITE_FILE: db.file };
  return startNode({ args: [new URL(file, here).pathname], env: { ...env, JWT_SECRET: secret, HOST: '127.0.0.1', NODE_ENV: 'production', ...extra }, logFile: new URL(`${name}.log`, out).pathname });
}

export const startBaseline = (db, name) => startHandWritten('baseline.mjs', db, name);

/** The floor validates against the contract the service serves: the snapshot's. */
export const startFloor = (db, name) => startHandWritten('floor.mjs', db, name, { CONTRACT_FILE: new URL('generated/openapi.json', appRoot()).pathname });
