// Every operation's handler, keyed by operationId. createApp refuses to start when this
// map and the contract disagree, so a new operation cannot ship without a handler.
import { createAccounts, type Accounts } from '../auth/accounts.js';
import type { Deps } from '../deps.js';
import type { AppModules } from '../app.js';
import { accountHandlers } from './accounts.js';
import { createHealthHandlers } from './health.js';
import { createImpiantiHandlers } from './impianti-files.js';
import { createQueryHandlers } from './query-handlers.js';

export interface Modules extends AppModules {
  /** Exposed for the users CLI and the tests, which mint tokens with it. */
  readonly accounts: Accounts;
  /** Start-up work that needs the database (the admin bootstrap). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createModules(deps: Deps): Modules {
  const accounts = createAccounts(deps);
  return {
    handlers: {
      ...accountHandlers(accounts.context),
      ...createQueryHandlers(deps),
      ...createImpiantiHandlers(deps),
      ...createHealthHandlers(deps),
    },
    authenticator: accounts,
    accounts,
    start: () => accounts.bootstrapAdmin(),
    close: () => accounts.close(),
  };
}
