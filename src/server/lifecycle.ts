// The lifecycle of a serving process (design.md §9): migrate, start the service and the
// schedules that keep its database, listen, and on SIGTERM/SIGINT drain (at most 10 s),
// stop the schedules, close the pool and exit 0. With WORKERS above 1 the primary runs the
// migrations and the schedules, the workers the service (cluster.ts, design.md §10).
import http, { type Server } from 'node:http';
import type { RequestHandler } from 'express';
import net, { type Socket } from 'node:net';
import type { Logger } from 'pino';
import { schedulePurge } from '../auth/token-purge.js';
import type { Config } from '../config.js';
import { connect, disconnect } from '../db/connect.js';
import { scheduleBackups } from '../db/maintenance/backup-schedule.js';
import { scheduleMaintenance } from '../db/maintenance/maintenance-schedule.js';
import { migrate } from '../db/migrate.js';
import type { Deps } from '../deps.js';
import { ApiError } from '../errors/api-error.js';
import type { GroupMetrics, ScheduleSources } from '../http/metrics.js';
import { rawErrorResponse } from '../http/respond.js';

const drainMs = 10_000;

/** How long a live client waits before it reconnects: long enough for a balancer to see this node gone. */
const liveRetryMs = 2_000;

export interface Schedules {
  /** The schedules' figures for /metrics. */
  readonly figures: ScheduleSources;
  /** Clears the timers and waits for a turn in progress. */
  stop(): Promise<void>;
}

/** The purge, the maintenance and (SQLite only) the backups, each on its own interval. */
export function startSchedules(deps: Pick<Deps, 'config' | 'db' | 'clock' | 'logger'>): Schedules {
  const { config, db, clock, logger } = deps;
  const maintenance = scheduleMaintenance({ db, logger, intervalS: config.maintenanceIntervalS });
  const purge = schedulePurge({ db, clock, logger, intervalS: config.purgeIntervalS, afterPurge: () => maintenance.afterPurge() });
  // Scheduled backups are of the embedded SQLite file; config refuses them with DATABASE_URL.
  const backups = config.backup.intervalS > 0 && config.databaseUrl === undefined
    ? scheduleBackups({ sqliteFile: config.sqliteFile, ...config.backup, logger, clock })
    : undefined;
  return {
    figures: { purged: () => purge.purged(), maintenanceTurns: () => maintenance.turns(), backups: () => backups?.stats() },
    async stop() {
      await backups?.stop();
      await purge.stop();
      await maintenance.stop();
    },
  };
}

/**
 * Pending migrations, on a pool of their own without the statement time limit: an ALTER
 * on a large table may rightly take minutes. Requests are served by a pool whose
 * statements the server itself aborts past QUERY_TIMEOUT_MS, so none hangs behind a lock.
 */
export async function migrateDatabase(config: Config): Promise<void> {
  const migrator = connect({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
  try {
    await migrate(migrator);
  } finally {
    await disconnect(migrator);
  }
}

export interface ServiceOptions {
  /** Whether this process runs the schedules: the only process, or none of the workers. */
  readonly schedules: boolean;
  /** A worker's /metrics answers for the whole process group. */
  readonly group?: GroupMetrics;
}

export interface RunningService {
  readonly port: number;
  /** Drains, then stops the schedules and the modules and closes the pool. */
  stop(signal: string): Promise<void>;
}

/** Builds the service on a migrated database and listens. */
export async function startService(config: Config, logger: Logger, options: ServiceOptions): Promise<RunningService> {
  // Loaded here, not above: the primary of several workers never serves, and without the
  // app, its contract and its validators it stays about 24 MiB smaller.
  const [{ createApp }, { createModules }, { loadContract }] = await Promise.all([import('../app.js'), import('../handlers/index.js'), import('../http/contract.js')]);
  const db = connect({
    databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, statementTimeoutMs: config.queryTimeoutMs,
    onNodeChange: ({ node, usable }) => (usable ? logger.info({ node }, 'database node back in') : logger.warn({ node }, 'database node taken out')),
  });
  // The pool keeps this connection open, and with it the lock that tells restore a server
  // holds the SQLite file (design.md §9).
  if (config.databaseUrl === undefined) await db.knex.raw('SELECT 1');
  const deps = { config, db, clock: () => new Date(), logger };
  const modules = createModules(deps);
  await modules.start();
  const schedules = options.schedules ? startSchedules(deps) : undefined;
  const metrics = { ...modules.metrics, ...schedules?.figures, ...(options.group ? { group: options.group } : {}) };
  const draining = { now: false };
  const app = await createApp(deps, await loadContract(), { ...modules, metrics }, { middleware: [closeWhileDraining(draining)] });
  const server = http.createServer(app);
  server.on('clientError', answerClientError);
  server.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, engine: config.databaseUrl ? 'mysql' : 'sqlite' }, 'listening');
  return {
    port,
    async stop(signal) {
      logger.info({ signal }, 'draining');
      draining.now = true;
      // Streams would hold their connections for the whole drain: they end first, told to come back.
      modules.endLive(liveRetryMs);
      await drain(server);
      await schedules?.stop();
      await modules.close();
      await disconnect(db);
      logger.info('stopped');
    },
  };
}

/** On the first SIGTERM or SIGINT runs `stop`, then exits: 0, or 1 when stopping failed. */
export function exitOnStopSignal(logger: Logger, stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) return;
    stopping = true;
    stop(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'stopping failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}

/**
 * While draining, every answer to a request that arrives closes its connection, so that
 * keep-alive clients reconnect elsewhere instead of sending into a socket about to close.
 * A request in flight when the drain begins keeps its connection until the keep-alive
 * timeout, which its client knows from the Keep-Alive header.
 */
function closeWhileDraining(draining: { readonly now: boolean }): RequestHandler {
  return (_req, res, next) => {
    if (draining.now) res.setHeader('Connection', 'close');
    next();
  };
}

/** Resolves when every connection has closed after its last answer, or after drainMs at the latest. */
function drain(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, drainMs);
    // net.Server's close() only stops accepting. http.Server's would also drop idle
    // keep-alive connections at once, resetting any request a client is sending on one at
    // that moment. Idle connections are left to the keep-alive timeout instead: clients know
    // it from the Keep-Alive header and stop reusing a connection before it runs out.
    net.Server.prototype.close.call(server, () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Requests Node's parser refuses still get a ResponseStatus body (design.md §3), not a bare status line. */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    return;
  }
  const reason = err.code === 'HPE_HEADER_OVERFLOW' ? `its headers exceed ${http.maxHeaderSize} bytes` : 'it is not valid HTTP/1.1';
  socket.end(rawErrorResponse(ApiError.of('SerializationException', `The request could not be parsed: ${reason}`)));
}
