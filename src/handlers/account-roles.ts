// AssignRoles and UnAssignRoles (POST /assignroles, /unassignroles), Admin only. The new
// roles reach the user's access token at its next refresh (design.md §4).
import type { AccountsContext } from '../auth/accounts-context.js';
import { forbidden, unauthorized } from '../auth/auth-errors.js';
import { hasRole, isRole, roles as knownRoles, type Role } from '../auth/roles.js';
import { addRoles, findUser, removeRoles, rolesOf } from '../auth/user-store.js';
import { writeTransaction } from '../db/write-transaction.js';
import { ApiError, type FieldError } from '../errors/api-error.js';
import type { HandlerMap, Response } from '../http/operation.js';

export function rolesHandler(ctx: AccountsContext, change: 'assign' | 'unassign'): HandlerMap['AssignRoles'] {
  const { db, logger } = ctx.deps;
  return async (req): Promise<Response<'AssignRoles'>> => {
    // The edge enforces the policy first; checked again so the handler is safe on its own.
    if (!req.principal) throw unauthorized();
    if (!hasRole(req.principal, 'Admin')) throw forbidden();
    const { userName, roles } = req.dto;
    const errors: FieldError[] = [];
    if (userName === undefined || userName === '') errors.push({ errorCode: 'NotEmpty', fieldName: 'UserName', message: "'UserName' must not be empty." });
    // `roles` is required by the contract (AssignRoles schema): a missing list is a 400, not a silent no-op.
    if (roles === undefined) {
      errors.push({ errorCode: 'NotEmpty', fieldName: 'Roles', message: "'Roles' must not be empty." });
    } else {
      const unknown = roles.filter((r) => !isRole(r));
      if (unknown.length > 0) {
        errors.push({ errorCode: 'InvalidValue', fieldName: 'Roles', message: `Unknown role ${unknown.map((r) => JSON.stringify(r)).join(', ')}; known roles: ${knownRoles.join(', ')}.` });
      }
    }
    if (errors.length > 0 || userName === undefined || roles === undefined) throw ApiError.validation(errors);

    const user = await findUser(db.knex, userName);
    if (!user) throw ApiError.of('NotFound', 'User does not exist');
    const requested: readonly Role[] = roles;
    // Idempotent, so a write the cluster refused whole, or a lost node, costs a retry (design.md §12).
    await writeTransaction(db, (trx) => (change === 'assign' ? addRoles : removeRoles)(trx, user.id, requested));
    logger.info({ event: `auth.roles-${change}`, userId: user.id, roles: requested, by: req.principal.userId }, 'roles changed');
    // The service has no permissions; ServiceStack clients expect the list (design.md §11).
    return { body: { allRoles: await rolesOf(db.knex, user.id), allPermissions: [] } };
  };
}
