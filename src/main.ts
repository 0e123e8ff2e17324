// The only module that listens. Resolves config, migrates, builds the app and serves;
// on SIGTERM/SIGINT stops accepting, lets in-flight requests finish (at most 10 s),
// closes the pool and exits 0 (DECISIONS §9).
import type { Server } from 'node:http';
import { pino } from 'pino';
import { createApp } from './app.js';
import { loadConfig, ConfigError } from './config.js';
import { connect } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { createModules } from './handlers/index.js';
import { loadContract } from './http/contract.js';

const drainMs = 10_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, base: { service: 'impianti-api' } });
  const db = connect({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
  await migrate(db);
  const deps = { config, db, clock: () => new Date(), logger };
  const modules = createModules(deps);
  await modules.start();
  const app = await createApp(deps, loadContract(), modules);
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  logger.info({ port: typeof address === 'object' && address ? address.port : config.port, engine: config.databaseUrl ? 'mysql' : 'sqlite' }, 'listening');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    void drain(server).then(async () => {
      await modules.close();
      await db.destroy();
      logger.info('stopped');
      process.exit(0);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Resolves when every in-flight request has finished, or after drainMs at the latest. */
function drain(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, drainMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    // Keep-alive connections with no request in flight would otherwise hold close() open.
    server.closeIdleConnections();
  });
}

main().catch((err: unknown) => {
  const message = err instanceof ConfigError ? `configuration error: ${err.message}` : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`impianti-api failed to start: ${message}\n`);
  process.exit(1);
});
