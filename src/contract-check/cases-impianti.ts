// GET /impianti/{ImpiantoId}/files (design.md §6). Access cases run before the user gets
// ApiUser; the rest after, as the user whose refreshed token carries the role.
import { check, expectError, expectStatus, needAdmin, needUser, skip } from './expect.js';
import type { ContractCase } from './suite-types.js';

const files = (id: number | string) => `/impianti/${id}/files`;

export const impiantiAccessCases: readonly ContractCase[] = [
  {
    name: 'GetImpiantoFilesRequest: 401 with WWW-Authenticate without a token',
    operationId: 'GetImpiantoFilesRequest',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('GET', files(ctx.impiantoId)), 401, 'Unauthorized'),
  },
  {
    name: 'GetImpiantoFilesRequest: 401 for a malformed token, before validating the id',
    operationId: 'GetImpiantoFilesRequest',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('GET', files('abc'), { token: 'not.a.jwt' }), 401, 'Unauthorized'),
  },
  {
    name: 'GetImpiantoFilesRequest: 403 for a user without ApiUser, even for an unknown id',
    operationId: 'GetImpiantoFilesRequest',
    kind: 'negative',
    async run(ctx) {
      const user = needUser(ctx.state);
      if (user.roles.length > 0) skip(`this deployment gives new users roles (${user.roles.join(', ')})`);
      expectError(await ctx.call('GET', files(2147483647), { token: user.bearerToken }), 403, 'Forbidden');
    },
  },
  {
    name: 'GetImpiantoFilesRequest: 405 with Allow: GET, HEAD for POST',
    operationId: 'GetImpiantoFilesRequest',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('POST', files(ctx.impiantoId), { json: {} }), 405, 'MethodNotAllowed'),
  },
  {
    name: 'GetImpiantoFilesRequest: JSONP failures answer 200 with responseStatus inside',
    operationId: 'GetImpiantoFilesRequest',
    kind: 'negative',
    async run(ctx) {
      const r = await ctx.call('GET', `${files(ctx.impiantoId)}?callback=cb`);
      expectStatus(r, 200);
      check(r.text.startsWith('/**/cb({"responseStatus":{"errorCode":"Unauthorized"'), `body is ${r.text.slice(0, 100)}`);
    },
  },
];

export const impiantiCases: readonly ContractCase[] = [
  {
    name: 'GetImpiantoFilesRequest: 200 root and contents, once a refresh brings ApiUser into the token',
    operationId: 'GetImpiantoFilesRequest',
    kind: 'positive',
    needsAdmin: true,
    async run(ctx) {
      const user = needUser(ctx.state);
      const refreshed = await ctx.call('POST', '/access-token', { json: { refreshToken: user.refreshToken } });
      expectStatus(refreshed, 200);
      Object.assign(user, { bearerToken: refreshed.body.accessToken, refreshToken: refreshed.body.refreshToken });
      const r = await ctx.call('GET', files(ctx.impiantoId), { token: user.bearerToken });
      if (r.status === 404) skip(`there is no Impianto ${ctx.impiantoId} on this deployment (choose one with --impianto-id)`);
      expectStatus(r, 200);
      const { rootFile, contents } = r.body as { rootFile?: { id: number; isFolder: boolean }; contents: Array<{ folderId?: number; isFolder: boolean }> };
      if (!rootFile?.isFolder) check(contents.length === 0, 'a root that is not a folder has contents');
      check(contents.every((c) => c.folderId === rootFile?.id), 'contents holds files of another folder');
      const firstFile = contents.findIndex((c) => !c.isFolder);
      check(firstFile < 0 || contents.slice(firstFile).every((c) => !c.isFolder), 'folders do not come first');
    },
  },
  {
    name: 'GetImpiantoFilesRequest: HEAD answers 200 without a body',
    operationId: 'GetImpiantoFilesRequest',
    kind: 'positive',
    needsAdmin: true,
    async run(ctx) {
      const r = await ctx.call('HEAD', files(ctx.impiantoId), { token: needAdmin(ctx.state).bearerToken });
      if (r.status === 404) skip(`there is no Impianto ${ctx.impiantoId} on this deployment`);
      expectStatus(r, 200);
      check(r.text === '', 'HEAD answered with a body');
    },
  },
  {
    name: 'GetImpiantoFilesRequest: 404 NotFound for an unknown Impianto',
    operationId: 'GetImpiantoFilesRequest',
    kind: 'negative',
    needsAdmin: true,
    run: async (ctx) => expectError(await ctx.call('GET', files(2147483647), { token: needAdmin(ctx.state).bearerToken }), 404, 'NotFound'),
  },
  {
    name: 'GetImpiantoFilesRequest: 400 naming ImpiantoId for 0',
    operationId: 'GetImpiantoFilesRequest',
    kind: 'negative',
    needsAdmin: true,
    run: async (ctx) => expectError(await ctx.call('GET', files(0), { token: needAdmin(ctx.state).bearerToken }), 400, 'InvalidValue', 'ImpiantoId'),
  },
];
