// Every operation's handler, keyed by operationId. createApp refuses to start when this
// map and the contract disagree, so a new operation cannot ship without a handler.
import { createAccounts, type Accounts } from '../auth/accounts.js';
import { createReads } from '../db/reads/replicas.js';
import { nodeStates } from '../db/connect.js';
import type { Deps } from '../deps.js';
import type { AppModules } from '../app.js';
import type { LiveModule } from '../http/live-stream.js';
import type { MetricsSources } from '../http/metrics.js';
import { accountHandlers } from './accounts.js';
import { createHealthHandlers } from './health.js';
import { createImpiantiHandlers } from './impianti-files.js';
import { createLiveAnswers } from './live-answers.js';
import { createQueryExportHandlers } from './query-export-handlers.js';
import { createQueryHandlers } from './query-handlers.js';

export interface Modules extends AppModules {
  /** Exposed for the users CLI and the tests, which mint tokens with it. */
  readonly accounts: Accounts;
  readonly metrics: MetricsSources;
  readonly live: LiveModule;
  /** Start-up work that needs the database: the admin bootstrap. */
  start(): Promise<void>;
  /** Ends every live answer with a retry hint: the first step of a drain. */
  endLive(retryMs: number): void;
  close(): Promise<void>;
}

export function createModules(deps: Deps): Modules {
  const { config } = deps;
  const accounts = createAccounts(deps);
  // The queries and the files read from replicas where there are some (design.md §12).
  const reads = createReads(deps.db, {
    replicaUrls: config.databaseReplicaUrls, maxLagMs: config.replicaMaxLagMs, statementTimeoutMs: config.queryTimeoutMs, logger: deps.logger,
  });
  const live = createLiveAnswers({ reads, config });
  return {
    live,
    handlers: {
      ...accountHandlers(accounts.context),
      ...createQueryHandlers({ reads, config }),
      ...createQueryExportHandlers({ reads, config }),
      ...createImpiantiHandlers({ reads, config }),
      ...createHealthHandlers(deps),
    },
    authenticator: accounts,
    accounts,
    metrics: {
      replicas: reads.health,
      primaryReads: reads.primaryReads,
      nodes: () => nodeStates(deps.db),
      live: () => live.hub.figures(),
    },
    start: () => accounts.bootstrapAdmin(),
    endLive: (retryMs) => live.hub.close(retryMs),
    async close() {
      live.hub.close(0);
      await reads.close();
      await accounts.close();
    },
  };
}
