// The only module that listens: resolves the configuration, then runs the service in this
// process (WORKERS=1), or as the primary of WORKERS workers, or as one of them (design.md §10).
import cluster from 'node:cluster';
import { pino } from 'pino';
import { runPrimary } from './cluster.js';
import { reportStartFailure, runWorker } from './cluster-worker.js';
import { loadConfig, ConfigError, type Config } from '../config.js';
import { exitOnStopSignal, migrateDatabase, startService } from './lifecycle.js';

async function main(): Promise<void> {
  const config = loadConfig();
  if (cluster.isWorker) return runWorker(config, logger(config, { worker: cluster.worker?.id }));
  if (config.workers > 1) return runPrimary(config, logger(config, { role: 'primary' }));
  const log = logger(config, {});
  await migrateDatabase(config);
  const service = await startService(config, log, { schedules: true });
  exitOnStopSignal(log, service.stop);
}

/** JSON lines on stdout; a worker's name which worker wrote them. */
const logger = (config: Config, bindings: Record<string, unknown>) =>
  pino({ level: config.logLevel, base: { service: 'impianti-api', ...bindings } });

main().catch(async (err: unknown) => {
  const message = err instanceof ConfigError ? `configuration error: ${err.message}` : err instanceof Error ? (err.stack ?? err.message) : String(err);
  // A worker's primary says it, once, and stops the whole service.
  if (!(cluster.isWorker && (await reportStartFailure(message)))) process.stderr.write(`impianti-api failed to start: ${message}\n`);
  process.exit(1);
});
