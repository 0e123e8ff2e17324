// Where the reads that tolerate a little staleness go (design.md §12): the two queries and
// the installation files, round robin over the healthy read replicas, or the primary when
// none is healthy. Accounts, tokens, roles and every write never come here: they use the
// primary directly. Replication is MariaDB's own; this only measures how far behind each
// replica is (the heartbeat row of migration 006) and stops sending it reads while it is
// unreachable or more than REPLICA_MAX_LAG_MS behind.
import type { Logger } from 'pino';
import { nameOf as nodeName, parseMysqlUrl } from '../../database-url.js';
import { connect, disconnect, nodeStates, probeNodes } from '../connect.js';
import type { Database } from '../database.js';
import { lostNode, noConnectionInTime, translateDbError } from '../driver-errors.js';
import { closeReads } from './select.js';

export interface ReplicaHealth {
  /** host:port, never the credentials. */
  readonly name: string;
  readonly healthy: boolean;
  /** How stale its answers may be, at its last check; undefined when it could not be asked. */
  readonly lagMs: number | undefined;
  readonly reads: number;
}

export interface Reads {
  /**
   * Runs a read on the handle of the next healthy replica (each replica is a connect() of
   * its own), or on the primary's. A replica that cannot answer (the server went away or
   * refuses connections) is marked unhealthy and the same read runs again on the primary,
   * so no request fails because a replica did.
   */
  run<T>(work: (database: Database) => Promise<T>): Promise<T>;
  primaryReads(): number;
  health(): readonly ReplicaHealth[];
  close(): Promise<void>;
}

export interface ReadsOptions {
  readonly replicaUrls: readonly string[];
  readonly maxLagMs: number;
  readonly statementTimeoutMs: number;
  readonly logger: Logger;
  readonly poolMax?: number;
}

interface Replica {
  readonly name: string;
  readonly database: Database;
  healthy: boolean;
  lagMs: number | undefined;
  reads: number;
}

/** `host:port` of a replica's URL, read as DATABASE_URL is (database-url.ts). */
const nameOf = (url: string): string => parseMysqlUrl(url).nodes.map(nodeName).join(',');

/** Every read on the primary: SQLite, or MySQL without DATABASE_REPLICA_URLS. Closing it closes the primary's read connections. */
export function primaryOnly(primary: Database): Reads {
  let primaryReads = 0;
  const nodes = nodeStates(primary).length;
  return {
    run: async (work) => {
      primaryReads++;
      // On a cluster a read that met a lost node, or waited in vain for a connection while a
      // paused one was being taken out, has the nodes probed at once, which takes a lost one
      // out and closes its connections, and runs again, up to once per node (design.md §12).
      // `work` has sent nothing yet.
      for (let attempt = 1; ; attempt++) {
        try {
          return await work(primary);
        } catch (err) {
          if (attempt >= nodes || !(lostNode(err) || noConnectionInTime(err))) throw err;
          await probeNodes(primary);
        }
      }
    },
    primaryReads: () => primaryReads,
    health: () => [],
    close: () => closeReads(primary),
  };
}

function openReplica(url: string, options: ReadsOptions): Replica {
  return {
    name: nameOf(url),
    database: connect({
      databaseUrl: url, poolMax: options.poolMax, statementTimeoutMs: options.statementTimeoutMs,
      // A replica that is down fails every connection attempt; its health says so once, in our own log.
      log: { warn: (m: unknown) => options.logger.debug({ replica: nameOf(url), knex: String(m) }, 'replica connection') },
    }),
    // Unproven until its first check: reads start on the primary.
    healthy: false,
    lagMs: undefined,
    reads: 0,
  };
}

/**
 * Writes the primary's heartbeat and measures each replica's lag, a beat every quarter of
 * the allowed lag (at most a second apart), so a replica that is up to date never looks
 * further behind than that. Returns what stops it.
 */
function watchLag(primary: Database, replicas: readonly Replica[], { logger, maxLagMs }: ReadsOptions): () => void {
  const everyMs = Math.min(1000, Math.max(25, Math.floor(maxLagMs / 4)));
  const beat = async () => {
    try {
      await primary.knex.raw('UPDATE replica_heartbeat SET beat = UTC_TIMESTAMP(6) WHERE id = 1').timeout(everyMs * 2);
    } catch (err) {
      // The primary is down: /ready says so, and the replicas' lag grows until they are skipped.
      logger.debug({ err }, 'heartbeat not written');
    }
  };
  const check = async (r: Replica) => {
    try {
      const raw = (await r.database.knex.raw('SELECT TIMESTAMPDIFF(MICROSECOND, beat, UTC_TIMESTAMP(6)) AS lag_us FROM replica_heartbeat WHERE id = 1').timeout(everyMs * 2)) as [Array<{ lag_us: number | string | null }>];
      const lagUs = raw[0][0]?.lag_us;
      if (lagUs == null) return setHealth(logger, r, false, undefined, 'no heartbeat row');
      // Clocks of two servers: a replica "ahead" of its primary is simply up to date.
      const lagMs = Math.max(0, Math.round(Number(lagUs) / 1000));
      setHealth(logger, r, lagMs <= maxLagMs, lagMs, lagMs <= maxLagMs ? 'caught up' : `more than ${maxLagMs} ms behind`);
    } catch (err) {
      setHealth(logger, r, false, undefined, translateDbError(err).message);
    }
  };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    if (stopped) return;
    void Promise.all([beat(), ...replicas.map(check)]).finally(() => {
      if (!stopped) timer = setTimeout(tick, everyMs);
    });
  };
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function setHealth(logger: Logger, r: Replica, healthy: boolean, lagMs: number | undefined, why: string): void {
  if (r.healthy !== healthy) logger.warn({ replica: r.name, lagMs, why }, healthy ? 'replica back in service' : 'replica skipped');
  r.healthy = healthy;
  r.lagMs = lagMs;
}

/** Round robin over the healthy replicas; undefined when none is. */
function roundRobin(replicas: readonly Replica[]): () => Replica | undefined {
  let next = 0;
  return () => {
    for (let i = 0; i < replicas.length; i++) {
      const r = replicas[(next + i) % replicas.length]!;
      if (r.healthy) {
        next = (next + i + 1) % replicas.length;
        return r;
      }
    }
    return undefined;
  };
}

export function createReads(primary: Database, options: ReadsOptions): Reads {
  const onPrimary = primaryOnly(primary);
  if (options.replicaUrls.length === 0) return onPrimary;
  const replicas = options.replicaUrls.map((url) => openReplica(url, options));
  const stopWatching = watchLag(primary, replicas, options);
  const pick = roundRobin(replicas);
  return {
    async run(work) {
      const r = pick();
      if (!r) return onPrimary.run(work);
      try {
        const value = await work(r.database);
        r.reads++;
        return value;
      } catch (err) {
        if (translateDbError(err).code !== 'ServiceUnavailable') throw err;
        setHealth(options.logger, r, false, r.lagMs, 'a read failed: the database is unavailable');
        return onPrimary.run(work);
      }
    },
    primaryReads: onPrimary.primaryReads,
    health: () => replicas.map(({ name, healthy, lagMs, reads }) => ({ name, healthy, lagMs, reads })),
    async close() {
      stopWatching();
      await Promise.all([onPrimary.close(), ...replicas.map((r) => disconnect(r.database))]);
    },
  };
}
