// Roles (design.md §4): who may assign them, the admin session the later cases use, and
// giving this run's user ApiUser (taken back by the last case, so a re-run starts clean).
import { signIn } from './cases-accounts.js';
import { check, expectError, expectStatus, needAdmin, needUser, skip } from './expect.js';
import type { ContractCase } from './suite-types.js';

const withoutAdmin = (roles: readonly string[]) => {
  if (roles.includes('Admin')) skip('this deployment gives new users Admin (DEFAULT_ROLES)');
};

export const roleCases: readonly ContractCase[] = [
  ...(['AssignRoles', 'UnAssignRoles'] as const).flatMap((operationId): ContractCase[] => {
    const path = `/${operationId.toLowerCase()}`;
    return [
      {
        name: `${operationId}: 401 without a token`,
        operationId,
        kind: 'negative',
        run: async (ctx) => expectError(await ctx.call('POST', path, { json: { userName: 'x', roles: ['ApiUser'] } }), 401, 'Unauthorized'),
      },
      {
        name: `${operationId}: 403 Invalid Role for a user without Admin`,
        operationId,
        kind: 'negative',
        async run(ctx) {
          const user = needUser(ctx.state);
          withoutAdmin(user.roles);
          const r = await ctx.call('POST', path, { json: { userName: user.userName, roles: ['Admin'] }, token: user.bearerToken });
          expectError(r, 403, 'Forbidden');
          check(r.body.responseStatus.message === 'Invalid Role', `message is ${r.body.responseStatus.message}`);
        },
      },
    ];
  }),
  {
    name: 'Authenticate: 200 for the admin account, with the Admin role',
    operationId: 'Authenticate',
    kind: 'positive',
    needsAdmin: true,
    async run(ctx) {
      const session = await signIn(ctx, ctx.admin!.userName, ctx.admin!.password);
      check(session.roles.includes('Admin'), `the admin account has roles [${session.roles.join(', ')}]`);
      ctx.state.admin = session;
    },
  },
  {
    name: 'AssignRoles: 200 gives the user ApiUser',
    operationId: 'AssignRoles',
    kind: 'positive',
    needsAdmin: true,
    async run(ctx) {
      const r = await ctx.call('POST', '/assignroles', { json: { userName: needUser(ctx.state).userName, roles: ['ApiUser'] }, token: needAdmin(ctx.state).bearerToken });
      expectStatus(r, 200);
      check(r.body.allRoles.includes('ApiUser'), `allRoles is [${r.body.allRoles.join(', ')}]`);
    },
  },
  {
    name: 'AssignRoles: 404 NotFound for an unknown user',
    operationId: 'AssignRoles',
    kind: 'negative',
    needsAdmin: true,
    async run(ctx) {
      const r = await ctx.call('POST', '/assignroles', { json: { userName: `nobody${ctx.state.runId}`, roles: ['ApiUser'] }, token: needAdmin(ctx.state).bearerToken });
      expectError(r, 404, 'NotFound');
    },
  },
  {
    name: 'AssignRoles: 400 naming Roles for a role that does not exist',
    operationId: 'AssignRoles',
    kind: 'negative',
    needsAdmin: true,
    async run(ctx) {
      const r = await ctx.call('POST', '/assignroles', { json: { userName: needUser(ctx.state).userName, roles: ['Root'] }, token: needAdmin(ctx.state).bearerToken });
      expectError(r, 400, 'InvalidValue', 'Roles');
    },
  },
];

export const roleCleanupCases: readonly ContractCase[] = [
  {
    name: 'UnAssignRoles: 200 takes ApiUser back',
    operationId: 'UnAssignRoles',
    kind: 'positive',
    needsAdmin: true,
    async run(ctx) {
      const r = await ctx.call('POST', '/unassignroles', { json: { userName: needUser(ctx.state).userName, roles: ['ApiUser'] }, token: needAdmin(ctx.state).bearerToken });
      expectStatus(r, 200);
      check(!r.body.allRoles.includes('ApiUser'), `allRoles is [${r.body.allRoles.join(', ')}]`);
    },
  },
];
