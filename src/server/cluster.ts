// The primary of WORKERS workers (design.md §10), with node:cluster: it migrates once, runs
// the schedules once for the machine, starts the workers and keeps their number, answers
// /metrics for the whole group, and on SIGTERM drains every worker before it stops. A worker
// that cannot start stops the whole service with that worker's error: starting it again
// would fail again, in a loop.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry, Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { PrimaryMessage, WorkerMessage } from './cluster-worker.js';
import { connect, disconnect } from '../db/connect.js';
import { scheduleMetrics, type ScheduleSources } from '../http/metrics.js';
import { exitOnStopSignal, migrateDatabase, startSchedules } from './lifecycle.js';

/** How long a stopping worker may take beyond its own 10 s drain before it is killed. */
const stopWaitMs = 15_000;

export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  await migrateDatabase(config);
  const db = connect({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, statementTimeoutMs: config.queryTimeoutMs });
  // As a single process's pool does, this connection tells restore a server holds the file.
  if (config.databaseUrl === undefined) await db.knex.raw('SELECT 1');
  const schedules = startSchedules({ config, db, clock: () => new Date(), logger });
  answerMetricsRequests(schedules.figures);
  const close = async () => {
    await schedules.stop();
    await disconnect(db);
  };
  const workers = superviseWorkers(config, logger, (message) => {
    void close().finally(() => {
      process.stderr.write(`impianti-api failed to start: ${message}\n`);
      process.exit(1);
    });
  });
  exitOnStopSignal(logger, async (signal) => {
    logger.info({ signal, workers: config.workers }, 'draining the workers');
    await workers.stop();
    await close();
    logger.info('stopped');
  });
}

/** Each worker of a single machine verifies the others' tokens and cursors: they share the primary's secrets. */
function sharedSecrets(config: Config): Record<string, string> {
  return { ...(config.jwt.secret !== undefined ? { JWT_SECRET: config.jwt.secret } : {}), CURSOR_SECRET: config.cursorSecret };
}

interface Workers {
  /** SIGTERM to every worker; resolves when all have exited. */
  stop(): Promise<void>;
}

/**
 * Starts config.workers workers. One that exits after it listened is logged and replaced;
 * one that exits before it listened calls `fatal` with its error, after the others stopped.
 */
function superviseWorkers(config: Config, logger: Logger, fatal: (message: string) => void): Workers {
  const env = sharedSecrets(config);
  const listening = new Set<number>();
  const failures = new Map<number, string>();
  let stopping: Promise<void> | undefined;
  let announced = false;
  cluster.on('message', (worker, m: WorkerMessage) => {
    if (m?.type === 'impianti:failed') failures.set(worker.id, m.message);
    if (m?.type !== 'impianti:listening') return;
    listening.add(worker.id);
    if (!announced && listening.size === config.workers) {
      announced = true;
      logger.info({ workers: config.workers, port: m.port }, 'every worker listening');
    }
  });
  const stop = () => (stopping ??= stopAll());
  cluster.on('exit', (worker, code, signal) => {
    const listened = listening.delete(worker.id);
    if (stopping) return;
    if (listened) {
      logger.error({ worker: worker.id, pid: worker.process.pid, code, signal }, 'worker died; starting another');
      cluster.fork(env);
      return;
    }
    // Its last message may still be on the channel: read once the channel has closed.
    void whenDisconnected(worker).then(() => {
      const message = failures.get(worker.id) ?? `worker ${worker.id} exited (${signal ?? `code ${code}`}) before it listened`;
      void stop().then(() => fatal(message));
    });
  });
  for (let i = 0; i < config.workers; i++) cluster.fork(env);
  return { stop };
}

function whenDisconnected(worker: Worker): Promise<void> {
  return new Promise((resolve) => (worker.isConnected() ? worker.once('disconnect', resolve) : resolve()));
}

/** SIGTERM to every worker (each drains), SIGKILL to any still running after stopWaitMs. */
async function stopAll(): Promise<void> {
  const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
  await Promise.all(running.map((worker) => new Promise<void>((resolve) => {
    const timer = setTimeout(() => worker.process.kill('SIGKILL'), stopWaitMs);
    worker.process.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    if (worker.isDead()) resolve();
    else worker.process.kill('SIGTERM');
  })));
}

/**
 * A worker asks for the group's /metrics: prom-client's AggregatorRegistry gathers every
 * worker's registry (counters and histograms summed, each default metric by its own rule),
 * and the primary adds its schedules' figures, which no worker has.
 */
function answerMetricsRequests(figures: ScheduleSources): void {
  const aggregator = new AggregatorRegistry();
  const own = new Registry();
  scheduleMetrics(own, figures);
  cluster.on('message', (worker, m: WorkerMessage) => {
    if (m?.type !== 'impianti:metrics-request') return;
    const reply = (answer: Omit<PrimaryMessage, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: 'impianti:metrics', id: m.id, ...answer } satisfies PrimaryMessage);
    };
    Promise.all([aggregator.clusterMetrics(), own.metrics()]).then(
      (texts) => reply({ text: `${texts.map((t) => t.trimEnd()).filter(Boolean).join('\n')}\n` }),
      (err: Error) => reply({ error: err.message }),
    );
  });
}
