// Register, sign-in, refresh and logout (design.md §4, §5). The first case registers this
// run's user; later cases sign in as it. Register is rate-limited per client address (10 a
// minute by default), so the suite registers only four times.
import { check, expectError, expectStatus, needUser } from './expect.js';
import type { CaseContext, ContractCase, Session } from './suite-types.js';

const password = 'contract-check-password';
const userName = (ctx: CaseContext, suffix = '') => `cc${ctx.state.runId}${suffix}`;

export async function signIn(ctx: CaseContext, name: string, secret: string): Promise<Session> {
  const r = await ctx.call('POST', '/auth/credentials', { json: { userName: name, password: secret } });
  expectStatus(r, 200);
  return { userName: name, password: secret, bearerToken: r.body.bearerToken, refreshToken: r.body.refreshToken, roles: r.body.roles };
}

export const accountCases: readonly ContractCase[] = [
  {
    name: 'Register: 200 with autoLogin carries a session, tokens and referrerUrl',
    operationId: 'Register',
    kind: 'positive',
    async run(ctx) {
      const name = userName(ctx);
      const r = await ctx.call('POST', '/register?continue=/benvenuto', {
        json: { userName: name, email: `${name}@example.com`, displayName: 'Contract Check', password, confirmPassword: password, autoLogin: true },
      });
      expectStatus(r, 200);
      check(r.body.userName === name, `userName is ${r.body.userName}`);
      check(r.body.referrerUrl === '/benvenuto', `referrerUrl is ${r.body.referrerUrl}`);
      for (const key of ['userId', 'sessionId', 'bearerToken', 'refreshToken']) check(typeof r.body[key] === 'string', `${key} missing`);
      ctx.state.user = { userName: name, password, bearerToken: r.body.bearerToken, refreshToken: r.body.refreshToken, roles: [] };
    },
  },
  {
    name: 'RegisterPut: 200 from a form body, without autoLogin no session',
    operationId: 'RegisterPut',
    kind: 'positive',
    async run(ctx) {
      const r = await ctx.call('PUT', '/register', { form: { userName: userName(ctx, 'p'), password } });
      expectStatus(r, 200);
      check(r.body.bearerToken === undefined && r.body.sessionId === undefined, 'a session was opened without autoLogin');
    },
  },
  {
    name: 'Register: 409 AlreadyExists for a taken user name in another case',
    operationId: 'Register',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('POST', '/register', { json: { userName: userName(ctx).toUpperCase(), password } }), 409, 'AlreadyExists', 'UserName'),
  },
  {
    name: 'RegisterPut: 400 lists every broken rule',
    operationId: 'RegisterPut',
    kind: 'negative',
    async run(ctx) {
      const r = await ctx.call('PUT', '/register', { json: { userName: 'x!', password: 'short' } });
      expectError(r, 400, 'InvalidUserName', 'UserName');
      const codes = r.body.responseStatus.errors.map((e: { fieldName: string; errorCode: string }) => `${e.fieldName}:${e.errorCode}`);
      check(codes.includes('Password:Length'), `errors are [${codes.join(', ')}]`);
    },
  },
  {
    name: 'Register: 400 SerializationException for malformed JSON',
    operationId: 'Register',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('POST', '/register', { body: '{"userName": ', headers: { 'content-type': 'application/json' } }), 400, 'SerializationException'),
  },
  {
    name: 'Register: 415 UnsupportedMediaType for a text/plain body',
    operationId: 'Register',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('POST', '/register', { body: 'userName=x', headers: { 'content-type': 'text/plain' } }), 415, 'UnsupportedMediaType'),
  },
  {
    name: 'Register: 413 PayloadTooLarge for a body over 1 MiB',
    operationId: 'Register',
    kind: 'negative',
    async run(ctx) {
      const body = JSON.stringify({ userName: 'x'.repeat(1024 * 1024) });
      expectError(await ctx.call('POST', '/register', { body, headers: { 'content-type': 'application/json' } }), 413, 'PayloadTooLarge');
    },
  },
  {
    name: 'Register: 405 with Allow for DELETE',
    operationId: 'Register',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('DELETE', '/register'), 405, 'MethodNotAllowed'),
  },
  {
    name: 'Authenticate: 200 for the registered user',
    operationId: 'Authenticate',
    kind: 'positive',
    async run(ctx) {
      const user = needUser(ctx.state);
      // User names are matched case-insensitively (design.md §5).
      const session = await signIn(ctx, user.userName.toUpperCase(), user.password);
      ctx.state.user = { ...session, userName: user.userName };
    },
  },
  {
    name: 'Authenticate: 401 Invalid UserName or Password for a wrong password',
    operationId: 'Authenticate',
    kind: 'negative',
    async run(ctx) {
      const r = await ctx.call('POST', '/auth/credentials', { json: { userName: needUser(ctx.state).userName, password: 'not-the-password' } });
      expectError(r, 401, 'Unauthorized');
      check(r.body.responseStatus.message === 'Invalid UserName or Password', `message is ${r.body.responseStatus.message}`);
    },
  },
  {
    name: 'Authenticate: 400 NotEmpty without a password',
    operationId: 'Authenticate',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('POST', '/auth/credentials', { json: { userName: 'someone' } }), 400, 'NotEmpty', 'Password'),
  },
  {
    name: 'GetAccessToken: 200 rotates the refresh token; replaying the spent one is 401',
    operationId: 'GetAccessToken',
    kind: 'positive',
    async run(ctx) {
      const user = needUser(ctx.state);
      // A session of its own: a replay revokes the whole session (design.md §4).
      const session = await signIn(ctx, user.userName, user.password);
      const r = await ctx.call('POST', '/access-token', { json: { refreshToken: session.refreshToken } });
      expectStatus(r, 200);
      check(r.body.refreshToken !== session.refreshToken, 'the refresh token did not rotate');
      expectError(await ctx.call('POST', '/access-token', { json: { refreshToken: session.refreshToken } }), 401, 'Unauthorized');
    },
  },
  {
    name: 'GetAccessToken: 401 for an unknown refresh token',
    operationId: 'GetAccessToken',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('POST', '/access-token', { json: { refreshToken: 'not-a-refresh-token' } }), 401, 'Unauthorized'),
  },
  {
    name: 'GetAccessToken: 400 NotEmpty without a refresh token',
    operationId: 'GetAccessToken',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('POST', '/access-token', { json: {} }), 400, 'NotEmpty', 'RefreshToken'),
  },
  {
    name: 'Logout: 200 {} closes the session; its refresh token stops working',
    operationId: 'Logout',
    kind: 'positive',
    async run(ctx) {
      const user = needUser(ctx.state);
      const session = await signIn(ctx, user.userName, user.password);
      const r = await ctx.call('POST', '/auth/logout', { token: session.bearerToken });
      expectStatus(r, 200);
      check(r.text === '{}', `body is ${r.text}`);
      expectError(await ctx.call('POST', '/access-token', { json: { refreshToken: session.refreshToken } }), 401, 'Unauthorized');
    },
  },
  {
    name: 'Logout: 401 with WWW-Authenticate without a token',
    operationId: 'Logout',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('POST', '/auth/logout'), 401, 'Unauthorized'),
  },
];
