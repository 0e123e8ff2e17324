// `make run` calls this before serving: migrates the configured database and loads the
// demo data once (seedDemo is idempotent), so a fresh machine shows something real.
import { loadConfig } from '../config.js';
import { connect, disconnect } from '../db/connect.js';
import { migrate } from '../db/migrate.js';
import { seedDemo } from './demo-data.js';

const config = loadConfig();
const db = connect({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
try {
  await migrate(db);
  await seedDemo(db);
  process.stdout.write(`demo data ready in ${config.databaseUrl ? 'MySQL' : config.sqliteFile}\n`);
} finally {
  await disconnect(db);
}
