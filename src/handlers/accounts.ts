// The seven account operations, keyed by operationId, over the context the accounts module
// builds (auth/accounts.ts): the handlers sit above the domain they use, never inside it.
import type { AccountsContext } from '../auth/accounts-context.js';
import type { HandlerMap } from '../http/operation.js';
import { registerHandler } from './account-register.js';
import { rolesHandler } from './account-roles.js';
import { accessTokenHandler, logoutHandler } from './account-session.js';
import { signInHandler } from './account-sign-in.js';

export type AccountOperation = 'Register' | 'RegisterPut' | 'Authenticate' | 'GetAccessToken' | 'Logout' | 'AssignRoles' | 'UnAssignRoles';

export function accountHandlers(ctx: AccountsContext): Pick<HandlerMap, AccountOperation> {
  const register = registerHandler(ctx);
  return {
    Register: register,
    RegisterPut: register,
    Authenticate: signInHandler(ctx),
    GetAccessToken: accessTokenHandler(ctx),
    Logout: logoutHandler(ctx),
    AssignRoles: rolesHandler(ctx, 'assign'),
    UnAssignRoles: rolesHandler(ctx, 'unassign'),
  };
}
