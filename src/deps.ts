// What every module is built from. app.ts receives one Deps; tests build their own
// (another database, a fixed clock, a silent logger).
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/database.js';

export interface Deps {
  readonly config: Config;
  /** The primary database's handle (db/database.ts). */
  readonly db: Database;
  /** Injected so tests can move time (token expiry, rate-limit windows). */
  readonly clock: () => Date;
  readonly logger: Logger;
}
