// Every operation's handler, keyed by operationId. createApp refuses to start when this
// map and the contract disagree, so a new operation cannot ship without a handler.
import { createAccounts, type Accounts } from '../auth/accounts.js';
import { schedulePurge, type PurgeSchedule } from '../auth/token-purge.js';
import { scheduleMaintenance, type MaintenanceSchedule } from '../db/maintenance-schedule.js';
import { scheduleBackups, type BackupSchedule } from '../db/backup-schedule.js';
import { createReads } from '../db/replicas.js';
import type { Deps } from '../deps.js';
import type { AppModules } from '../app.js';
import { accountHandlers } from './accounts.js';
import { createHealthHandlers } from './health.js';
import { createImpiantiHandlers } from './impianti-files.js';
import { createQueryHandlers } from './query-handlers.js';

export interface Modules extends AppModules {
  /** Exposed for the users CLI and the tests, which mint tokens with it. */
  readonly accounts: Accounts;
  /** Start-up work that needs the database (the admin bootstrap), then the purge's and the maintenance's schedules. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createModules(deps: Deps): Modules {
  const { config } = deps;
  const accounts = createAccounts(deps);
  // The queries and the files read from replicas where there are some (design.md §12).
  const reads = createReads(deps.db, {
    replicaUrls: config.databaseReplicaUrls, maxLagMs: config.replicaMaxLagMs, statementTimeoutMs: config.queryTimeoutMs, logger: deps.logger,
  });
  let purge: PurgeSchedule | undefined;
  let maintenance: MaintenanceSchedule | undefined;
  let backups: BackupSchedule | undefined;
  return {
    handlers: {
      ...accountHandlers(accounts.context),
      ...createQueryHandlers({ reads, config }),
      ...createImpiantiHandlers({ reads, config }),
      ...createHealthHandlers(deps),
    },
    authenticator: accounts,
    accounts,
    metrics: {
      replicas: reads.health,
      primaryReads: reads.primaryReads,
      purged: () => purge?.purged() ?? { tokens: 0, sessions: 0 },
      maintenanceTurns: () => maintenance?.turns() ?? { purge: 0, schedule: 0 },
      backups: () => backups?.stats(),
    },
    async start() {
      await accounts.bootstrapAdmin();
      const upkeep = scheduleMaintenance({ db: deps.db, logger: deps.logger, intervalS: config.maintenanceIntervalS });
      maintenance = upkeep;
      purge = schedulePurge({ db: deps.db, clock: deps.clock, logger: deps.logger, intervalS: config.purgeIntervalS, afterPurge: () => upkeep.afterPurge() });
      // Scheduled backups are of the embedded SQLite file; config refuses them with DATABASE_URL.
      if (config.backup.intervalS > 0 && config.databaseUrl === undefined) {
        backups = scheduleBackups({ sqliteFile: config.sqliteFile, ...config.backup, logger: deps.logger, clock: deps.clock });
      }
    },
    async close() {
      await backups?.stop();
      await purge?.stop();
      await maintenance?.stop();
      await reads.close();
      await accounts.close();
    },
  };
}
