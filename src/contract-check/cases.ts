// Every case of the contract suite, in the order they run: later groups use the accounts
// and roles earlier ones set up.
import { accountCases } from './cases-accounts.js';
import { edgeCases } from './cases-edge.js';
import { queryExportCases } from './cases-export.js';
import { impiantiAccessCases, impiantiCases } from './cases-impianti.js';
import { queryCases } from './cases-query.js';
import { roleCases, roleCleanupCases } from './cases-roles.js';
import type { ContractCase } from './suite-types.js';

export const contractCases: readonly ContractCase[] = [
  ...edgeCases,
  ...accountCases,
  ...impiantiAccessCases,
  ...roleCases,
  ...impiantiCases,
  ...queryCases,
  ...queryExportCases,
  ...roleCleanupCases,
];
