import { availableParallelism } from 'node:os';
import path from 'node:path';
import proxyAddr from 'proxy-addr';
import { INT32_MAX } from './int32.js';
import { parseMysqlUrl } from './database-url.js';

// Resolves the environment once into a frozen Config (design.md §10). A bad value
// stops start-up with a message naming the variable; nothing else reads process.env.

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Processes serving requests; above 1, under one primary (design.md §10). */
  readonly workers: number;
  readonly databaseUrl: string | undefined;
  /** MySQL read replicas for the reads that tolerate a little staleness (design.md §12). */
  readonly databaseReplicaUrls: readonly string[];
  /** A replica further behind the primary than this is skipped until it catches up. */
  readonly replicaMaxLagMs: number;
  /** Seconds between purges of dead refresh tokens and sessions; 0 = never (design.md §12). */
  readonly purgeIntervalS: number;
  /** Seconds between database maintenance turns besides those after purges; 0 = none on a schedule (design.md §8). */
  readonly maintenanceIntervalS: number;
  readonly sqliteFile: string;
  /** Scheduled backups of the SQLite file (design.md §9): where, how often (0 = never), how many kept. */
  readonly backup: { readonly dir: string; readonly intervalS: number; readonly keep: number };
  readonly production: boolean;
  readonly debug: boolean;
  readonly logLevel: string;
  readonly jwt: {
    readonly algorithm: 'HS256' | 'RS256' | 'ES256';
    readonly secret: string | undefined;
    readonly privateKeyFile: string | undefined;
    readonly publicKeyFile: string | undefined;
    readonly issuer: string;
    readonly audience: string;
  };
  /** Seconds. */
  readonly accessTokenTtl: number;
  /** Seconds. */
  readonly refreshTokenTtl: number;
  /** `rotate`: each refresh spends the token and returns a new one; `reuse`: one token per session (design.md §11). */
  readonly refreshTokenRotation: 'rotate' | 'reuse';
  readonly adminUserName: string | undefined;
  readonly adminPassword: string | undefined;
  readonly defaultRoles: readonly string[];
  readonly defaultTake: number;
  readonly maxTake: number;
  readonly includeTotal: boolean;
  readonly queryTimeoutMs: number;
  /** Signs the query cursors (`After`); the same on every node, so a cursor works on any of them. */
  readonly cursorSecret: string;
  /** `Include=EstimatedTotal` counts exactly up to this many rows, then asks the engine's estimate. */
  readonly estimateExactUpTo: number;
  /** Exports running at once in this process; one more is 429 (design.md §7, Exports). */
  readonly exportConcurrency: number;
  /** Live answers (design.md §7): how often each process reads the table versions, and its cap on open streams. */
  readonly liveIntervalMs: number;
  readonly liveMaxSubscriptions: number;
  readonly scrypt: { readonly logN: number; readonly r: number; readonly p: number };
  readonly hashConcurrency: number;
  readonly hashQueue: number;
  readonly rateLimitRegisterPerMin: number;
  readonly rateLimitLoginFailuresPerMin: number;
  /** TRUST_PROXY compiled: whether to believe the hop at `index` (0 = the socket's peer) as a forwarder. */
  readonly trustProxy: TrustProxy;
  readonly corsOrigins: readonly string[];
}

export class ConfigError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const present = (env: Env, name: string): string | undefined => {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
};

export type TrustProxy = (address: string, index: number) => boolean;

/** TRUST_PROXY as express's `trust proxy` reads it: true/false, a hop count, or addresses and subnets. */
function trustProxy(env: Env): TrustProxy {
  const v = present(env, 'TRUST_PROXY');
  if (v === undefined || /^false$/i.test(v)) return () => false;
  if (/^true$/i.test(v)) return () => true;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return (_address, index) => index < hops;
  }
  try {
    return proxyAddr.compile(v.split(',').map((s) => s.trim()));
  } catch (err) {
    throw new ConfigError('TRUST_PROXY', `must be true, false, a hop count or addresses/subnets (${(err as Error).message})`);
  }
}

function int(env: Env, name: string, fallback: number, min: number, max = INT32_MAX): number {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

const list = (env: Env, name: string): string[] =>
  (present(env, name) ?? '').split(',').map((s) => s.trim()).filter(Boolean);

/** Durations: plain seconds or a number with s, m, h or d (`15m`, `30d`). */
function duration(env: Env, name: string, fallbackSeconds: number): number {
  const raw = present(env, name);
  if (raw === undefined) return fallbackSeconds;
  const m = /^(\d+)\s*([smhd]?)$/.exec(raw);
  if (!m) throw new ConfigError(name, `must be a duration like 900, 15m, 12h or 30d, got "${raw}"`);
  const seconds = Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  if (seconds < 1) throw new ConfigError(name, 'must be at least one second');
  return seconds;
}

const knownRoles = ['Admin', 'ApiUser'];

export function loadConfig(env: Env = process.env): Config {
  const production = present(env, 'NODE_ENV') === 'production';
  const { jwt, cursorSecret } = secrets(env, production);
  const database = databaseSettings(env);
  const workers = workerCount(env);
  if (workers > 1 && database.databaseUrl === undefined && (database.sqliteFile === ':memory:' || database.sqliteFile.startsWith('file:'))) {
    throw new ConfigError('WORKERS', 'needs a SQLite file every worker can open (SQLITE_FILE), not an in-memory database');
  }
  const logLevel = present(env, 'LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`);
  }
  const maxTake = int(env, 'MAX_TAKE', 1000, 1, 100_000);
  return Object.freeze({
    port: int(env, 'PORT', 8080, 0, 65535),
    host: present(env, 'HOST') ?? '0.0.0.0',
    workers,
    ...database,
    purgeIntervalS: int(env, 'PURGE_INTERVAL_S', 3600, 0),
    maintenanceIntervalS: int(env, 'MAINTENANCE_INTERVAL_S', 21600, 0),
    production,
    debug: bool(env, 'DEBUG', false),
    logLevel,
    jwt,
    ...accountSettings(env, workers),
    defaultTake: int(env, 'DEFAULT_TAKE', 100, 0, maxTake),
    maxTake,
    includeTotal: bool(env, 'INCLUDE_TOTAL', false),
    queryTimeoutMs: int(env, 'QUERY_TIMEOUT_MS', 5000, 1),
    cursorSecret,
    estimateExactUpTo: int(env, 'ESTIMATE_EXACT_UP_TO', 10_000, 0, 10_000_000),
    exportConcurrency: int(env, 'EXPORT_CONCURRENCY', 2, 1, 64),
    liveIntervalMs: int(env, 'LIVE_INTERVAL_MS', 500, 50, 1000),
    liveMaxSubscriptions: int(env, 'LIVE_MAX_SUBSCRIPTIONS', 10_000, 0, 1_000_000),
    trustProxy: trustProxy(env),
    corsOrigins: Object.freeze(list(env, 'CORS_ORIGINS')),
  } satisfies Config) as Config;
}

/** WORKERS: a count, or `auto` for one per core the process may use (design.md §10). */
function workerCount(env: Env): number {
  const raw = present(env, 'WORKERS');
  if (raw !== undefined && /^auto$/i.test(raw)) return availableParallelism();
  if (raw !== undefined && !/^\d+$/.test(raw)) throw new ConfigError('WORKERS', `must be a number of workers or auto, got "${raw}"`);
  return int(env, 'WORKERS', 1, 1, 256);
}

/** The token keys and the cursors' secret. */
function secrets(env: Env, production: boolean): Pick<Config, 'jwt' | 'cursorSecret'> {
  const algorithm = (present(env, 'JWT_ALGORITHM') ?? 'HS256').toUpperCase();
  if (algorithm !== 'HS256' && algorithm !== 'RS256' && algorithm !== 'ES256') {
    throw new ConfigError('JWT_ALGORITHM', `must be HS256, RS256 or ES256, got "${algorithm}"`);
  }
  const secret = present(env, 'JWT_SECRET');
  if (algorithm === 'HS256') {
    if (secret !== undefined && Buffer.byteLength(secret) < 32) throw new ConfigError('JWT_SECRET', 'must be at least 32 bytes');
    if (secret === undefined && production) throw new ConfigError('JWT_SECRET', 'is required when NODE_ENV=production');
  } else {
    for (const name of ['JWT_PRIVATE_KEY_FILE', 'JWT_PUBLIC_KEY_FILE']) {
      if (!present(env, name)) throw new ConfigError(name, `is required when JWT_ALGORITHM=${algorithm}`);
    }
  }
  const cursorSecret = present(env, 'CURSOR_SECRET');
  if (cursorSecret !== undefined && Buffer.byteLength(cursorSecret) < 32) throw new ConfigError('CURSOR_SECRET', 'must be at least 32 bytes');
  if (cursorSecret === undefined && algorithm !== 'HS256' && production) {
    throw new ConfigError('CURSOR_SECRET', `is required when JWT_ALGORITHM=${algorithm} and NODE_ENV=production (query cursors are signed with it)`);
  }
  // Outside production a missing secret gets a per-process random one: tokens simply stop
  // verifying after a restart, and no secret is ever committed. Several workers share the
  // primary's (cluster.ts).
  const jwtSecret = algorithm === 'HS256' ? (secret ?? randomSecret()) : undefined;
  const jwt = Object.freeze({
    algorithm,
    secret: jwtSecret,
    privateKeyFile: present(env, 'JWT_PRIVATE_KEY_FILE'),
    publicKeyFile: present(env, 'JWT_PUBLIC_KEY_FILE'),
    issuer: present(env, 'JWT_ISSUER') ?? 'impianti-api',
    audience: present(env, 'JWT_AUDIENCE') ?? 'impianti-api',
  });
  // Without its own secret a cursor is signed with a key derived from the token secret.
  return { jwt, cursorSecret: cursorSecret ?? jwtSecret ?? randomSecret() };
}

/** The primary, its replicas, the embedded file and its backups. */
function databaseSettings(env: Env): Pick<Config, 'databaseUrl' | 'databaseReplicaUrls' | 'replicaMaxLagMs' | 'sqliteFile' | 'backup'> {
  const databaseUrl = present(env, 'DATABASE_URL');
  if (databaseUrl !== undefined) {
    try {
      parseMysqlUrl(databaseUrl);
    } catch (err) {
      throw new ConfigError('DATABASE_URL', (err as Error).message);
    }
  }
  const databaseReplicaUrls = list(env, 'DATABASE_REPLICA_URLS');
  for (const url of databaseReplicaUrls) {
    if (databaseUrl === undefined) throw new ConfigError('DATABASE_REPLICA_URLS', 'needs DATABASE_URL: replicas follow a MySQL primary');
    if (!/^mysql2?:\/\//.test(url)) throw new ConfigError('DATABASE_REPLICA_URLS', 'must be comma-separated mysql://user:pass@host:port/db URLs');
  }
  const sqliteFile = present(env, 'SQLITE_FILE') ?? 'data/impianti.sqlite';
  const backupIntervalS = int(env, 'BACKUP_INTERVAL_S', 0, 0);
  if (backupIntervalS > 0 && databaseUrl !== undefined) {
    throw new ConfigError('BACKUP_INTERVAL_S', 'backs up the embedded SQLite file only; with DATABASE_URL use the engine\'s own tools (README, For operators)');
  }
  return {
    databaseUrl,
    databaseReplicaUrls: Object.freeze(databaseReplicaUrls),
    replicaMaxLagMs: int(env, 'REPLICA_MAX_LAG_MS', 2000, 100),
    sqliteFile,
    backup: Object.freeze({
      dir: present(env, 'BACKUP_DIR') ?? path.join(path.dirname(sqliteFile), 'backups'),
      intervalS: backupIntervalS,
      keep: int(env, 'BACKUP_KEEP', 7, 1),
    }),
  };
}

type AccountSettings = Pick<Config, 'accessTokenTtl' | 'refreshTokenTtl' | 'refreshTokenRotation' | 'adminUserName' | 'adminPassword'
  | 'defaultRoles' | 'scrypt' | 'hashConcurrency' | 'hashQueue' | 'rateLimitRegisterPerMin' | 'rateLimitLoginFailuresPerMin'>;

/** Tokens, the bootstrap admin, password hashing and the rate limits. */
function accountSettings(env: Env, workers: number): AccountSettings {
  const defaultRoles = list(env, 'DEFAULT_ROLES');
  for (const role of defaultRoles) {
    if (!knownRoles.includes(role)) throw new ConfigError('DEFAULT_ROLES', `unknown role "${role}" (known: ${knownRoles.join(', ')})`);
  }
  const rotation = (present(env, 'REFRESH_TOKEN_ROTATION') ?? 'rotate').toLowerCase();
  if (rotation !== 'rotate' && rotation !== 'reuse') throw new ConfigError('REFRESH_TOKEN_ROTATION', `must be rotate or reuse, got "${rotation}"`);
  return {
    accessTokenTtl: duration(env, 'ACCESS_TOKEN_TTL', 15 * 60),
    refreshTokenTtl: duration(env, 'REFRESH_TOKEN_TTL', 30 * 86400),
    refreshTokenRotation: rotation,
    adminUserName: present(env, 'ADMIN_USERNAME'),
    adminPassword: env['ADMIN_PASSWORD'] || undefined,
    defaultRoles: Object.freeze(defaultRoles),
    scrypt: Object.freeze({ logN: int(env, 'SCRYPT_LOG_N', 15, 1, 30), r: int(env, 'SCRYPT_R', 8, 1, 64), p: int(env, 'SCRYPT_P', 3, 1, 64) }),
    // One core is left to the request path, shared by the workers: scrypt at production
    // cost on every core starves queries (4 hashes at once on 2 cores multiply a query's
    // p99 by 100).
    hashConcurrency: int(env, 'HASH_CONCURRENCY', Math.max(1, Math.floor((availableParallelism() - 1) / workers)), 1, 256),
    hashQueue: int(env, 'HASH_QUEUE', 256, 0, 100_000),
    rateLimitRegisterPerMin: int(env, 'RATE_LIMIT_REGISTER_PER_MIN', 10, 0),
    rateLimitLoginFailuresPerMin: int(env, 'RATE_LIMIT_LOGIN_FAILURES_PER_MIN', 10, 0),
  };
}

function randomSecret(): string {
  // Lazy import keeps this module free of side effects when a secret is configured.
  return globalThis.crypto.getRandomValues(Buffer.alloc(48)).toString('base64url');
}
