// The only module that listens: resolves the configuration, then runs the service in this
// process (WORKERS=1), or as the primary of WORKERS workers, or as one of them (design.md §10).
import { pino } from 'pino';
import { loadConfig, ConfigError } from './config.js';
import { exitOnStopSignal, migrateDatabase, startService } from './lifecycle.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, base: { service: 'impianti-api' } });
  await migrateDatabase(config);
  const service = await startService(config, logger, { schedules: true });
  exitOnStopSignal(logger, service.stop);
}

main().catch((err: unknown) => {
  const message = err instanceof ConfigError ? `configuration error: ${err.message}` : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`impianti-api failed to start: ${message}\n`);
  process.exit(1);
});
