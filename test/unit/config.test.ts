import { availableParallelism } from 'node:os';
import { expect } from 'chai';
import { loadConfig, ConfigError } from '../../src/config.js';

describe('config', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).to.equal(8080);
    expect(c.sqliteFile).to.equal('data/impianti.sqlite');
    expect(c.defaultTake).to.equal(100);
    expect(c.maxTake).to.equal(1000);
    expect(c.queryTimeoutMs).to.equal(5000);
    expect(c.accessTokenTtl).to.equal(900);
    expect(c.refreshTokenTtl).to.equal(30 * 86400);
    expect(c.scrypt).to.deep.equal({ logN: 15, r: 8, p: 3 });
    expect(c.jwt.issuer).to.equal('impianti-api');
    expect(c.databaseReplicaUrls).to.deep.equal([]);
    expect(c.replicaMaxLagMs).to.equal(2000);
    expect(c.purgeIntervalS).to.equal(3600);
    expect(c.estimateExactUpTo).to.equal(10_000);
    expect(c.exportConcurrency).to.equal(2);
    expect(c.maintenanceIntervalS).to.equal(21600);
    expect(c.backup).to.deep.equal({ dir: 'data/backups', intervalS: 0, keep: 7 });
    expect(c.workers).to.equal(1);
    expect(c.hashConcurrency).to.equal(Math.max(1, availableParallelism() - 1));
    expect(Object.isFrozen(c)).to.equal(true);
  });

  it('signs cursors with CURSOR_SECRET, else with the JWT secret', () => {
    const jwt = 'a jwt secret of at least thirty-two bytes';
    expect(loadConfig({ JWT_SECRET: jwt }).cursorSecret).to.equal(jwt);
    expect(loadConfig({ JWT_SECRET: jwt, CURSOR_SECRET: 'a cursor secret of at least 32 bytes!' }).cursorSecret).to.equal('a cursor secret of at least 32 bytes!');
    // Outside production without either: the per-process random token secret.
    const c = loadConfig({});
    expect(c.cursorSecret).to.equal(c.jwt.secret);
    expect(Buffer.byteLength(c.cursorSecret)).to.be.at.least(32);
  });

  const bad: Array<[string, Record<string, string>, RegExp]> = [
    ['non-numeric port', { PORT: 'eighty' }, /^PORT: must be an integer/],
    ['port out of range', { PORT: '70000' }, /^PORT: must be between/],
    ['short JWT secret', { JWT_SECRET: 'short' }, /^JWT_SECRET: must be at least 32 bytes/],
    ['production without secret', { NODE_ENV: 'production' }, /^JWT_SECRET: is required/],
    ['unknown algorithm', { JWT_ALGORITHM: 'none' }, /^JWT_ALGORITHM: /],
    ['RS256 without keys', { JWT_ALGORITHM: 'RS256' }, /^JWT_PRIVATE_KEY_FILE: is required/],
    ['non-mysql database url', { DATABASE_URL: 'postgres://x' }, /^DATABASE_URL: /],
    ['replicas without a primary', { DATABASE_REPLICA_URLS: 'mysql://r@10.0.0.2/app' }, /^DATABASE_REPLICA_URLS: needs DATABASE_URL/],
    ['a replica that is no mysql url', { DATABASE_URL: 'mysql://a@b/c', DATABASE_REPLICA_URLS: 'mysql://r@10.0.0.2/app, redis://x' }, /^DATABASE_REPLICA_URLS: must be comma-separated mysql/],
    ['a replica lag bound below 100 ms', { REPLICA_MAX_LAG_MS: '50' }, /^REPLICA_MAX_LAG_MS: must be between 100/],
    ['a negative purge interval', { PURGE_INTERVAL_S: '-1' }, /^PURGE_INTERVAL_S: must be between 0/],
    ['a maintenance interval that is no number', { MAINTENANCE_INTERVAL_S: '6h' }, /^MAINTENANCE_INTERVAL_S: must be an integer/],
    ['a negative backup interval', { BACKUP_INTERVAL_S: '-5' }, /^BACKUP_INTERVAL_S: must be between 0/],
    ['scheduled backups on MySQL', { DATABASE_URL: 'mysql://a@b/c', BACKUP_INTERVAL_S: '3600' }, /^BACKUP_INTERVAL_S: backs up the embedded SQLite file only/],
    ['keeping no backup', { BACKUP_KEEP: '0' }, /^BACKUP_KEEP: must be between 1/],
    ['unknown default role', { DEFAULT_ROLES: 'Root' }, /^DEFAULT_ROLES: unknown role "Root"/],
    ['bad boolean', { DEBUG: 'maybe' }, /^DEBUG: must be true or false/],
    ['bad duration', { ACCESS_TOKEN_TTL: '15 minutes' }, /^ACCESS_TOKEN_TTL: /],
    ['default take above max', { MAX_TAKE: '50', DEFAULT_TAKE: '60' }, /^DEFAULT_TAKE: must be between 0 and 50/],
    ['bad log level', { LOG_LEVEL: 'loud' }, /^LOG_LEVEL: /],
    ['short cursor secret', { CURSOR_SECRET: 'short' }, /^CURSOR_SECRET: must be at least 32 bytes/],
    ['RS256 in production without a cursor secret', { NODE_ENV: 'production', JWT_ALGORITHM: 'RS256', JWT_PRIVATE_KEY_FILE: 'k', JWT_PUBLIC_KEY_FILE: 'p' }, /^CURSOR_SECRET: is required when JWT_ALGORITHM=RS256/],
    ['a negative estimate limit', { ESTIMATE_EXACT_UP_TO: '-1' }, /^ESTIMATE_EXACT_UP_TO: must be between 0/],
    ['no exports at all', { EXPORT_CONCURRENCY: '0' }, /^EXPORT_CONCURRENCY: must be between 1 and 64/],
    ['unknown refresh token rotation', { REFRESH_TOKEN_ROTATION: 'sometimes' }, /^REFRESH_TOKEN_ROTATION: must be rotate or reuse/],
    ['no workers', { WORKERS: '0' }, /^WORKERS: must be between 1 and 256, got 0/],
    ['workers that are no number', { WORKERS: 'all' }, /^WORKERS: must be a number of workers or auto, got "all"/],
    ['workers on an in-memory database', { WORKERS: '2', SQLITE_FILE: ':memory:' }, /^WORKERS: needs a SQLite file every worker can open/],
    ['a proxy that is no address', { TRUST_PROXY: '10.0.0.0/8, gateway' }, /^TRUST_PROXY: must be true, false, a hop count or addresses\/subnets/],
  ];
  for (const [name, env, message] of bad) {
    it(`stops on ${name}, naming the variable`, () => {
      expect(() => loadConfig(env)).to.throw(ConfigError, message);
    });
  }

  it('reads the replica list, comma-separated, and lets the purge and the scheduled maintenance be switched off', () => {
    const c = loadConfig({ DATABASE_URL: 'mysql://a@p/app', DATABASE_REPLICA_URLS: ' mysql://a@r1/app ,mysql://a@r2:3307/app', PURGE_INTERVAL_S: '0', MAINTENANCE_INTERVAL_S: '0' });
    expect(c.maintenanceIntervalS).to.equal(0);
    expect(c.databaseReplicaUrls).to.deep.equal(['mysql://a@r1/app', 'mysql://a@r2:3307/app']);
    expect(c.purgeIntervalS).to.equal(0);
  });

  it('puts backups beside the SQLite file unless BACKUP_DIR says where', () => {
    expect(loadConfig({ SQLITE_FILE: '/srv/impianti/db.sqlite', BACKUP_INTERVAL_S: '3600', BACKUP_KEEP: '3' }).backup).to.deep.equal({ dir: '/srv/impianti/backups', intervalS: 3600, keep: 3 });
    expect(loadConfig({ BACKUP_DIR: '/mnt/backups' }).backup.dir).to.equal('/mnt/backups');
  });

  it('starts one worker per core with WORKERS=auto, and shares the hashing cores among the workers', () => {
    expect(loadConfig({ WORKERS: 'auto' }).workers).to.equal(availableParallelism());
    expect(loadConfig({ WORKERS: ' AUTO ' }).workers).to.equal(availableParallelism());
    const four = loadConfig({ WORKERS: '4', DATABASE_URL: 'mysql://a@p/app' });
    expect(four.workers).to.equal(4);
    expect(four.hashConcurrency).to.equal(Math.max(1, Math.floor((availableParallelism() - 1) / 4)));
    expect(loadConfig({ WORKERS: '4', HASH_CONCURRENCY: '3' }).hashConcurrency).to.equal(3);
  });

  it('reads durations with units', () => {
    expect(loadConfig({ ACCESS_TOKEN_TTL: '2m', REFRESH_TOKEN_TTL: '7d' })).to.include({ accessTokenTtl: 120, refreshTokenTtl: 604800 });
  });
});
