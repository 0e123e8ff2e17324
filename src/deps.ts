// What every module is built from. app.ts receives one Deps; tests build their own
// (another database, a fixed clock, a silent logger).
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from './config.js';

export interface Deps {
  readonly config: Config;
  readonly db: Knex;
  /** Injected so tests can move time (token expiry, rate-limit windows). */
  readonly clock: () => Date;
  readonly logger: Logger;
}
