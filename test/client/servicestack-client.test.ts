// ServiceStack's own JsonServiceClient (@servicestack/client, pinned) against the service,
// with the DTOs the service serves at /types/typescript (generated/servicestack-dtos.ts,
// compiled with the project under tsc --strict): once on the v5 routes (basePath null,
// /json/reply/{Name}) and once on the client's default /api/{Name} (design.md §11).
// Access tokens are expired by moving the server's clock, so the client's automatic
// refresh runs as it would after 15 minutes.
import { expect } from 'chai';
import fs from 'node:fs';
import { JsonServiceClient } from '@servicestack/client';
import * as dtos from '../../generated/servicestack-dtos.js';
import { seedDemo } from '../../src/cli/demo-data.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

const admin = { userName: 'ss.admin', password: 'ss-admin-password' };
const password = 'ss-user-password';
const minutes = (n: number) => n * 60_000;

/**
 * CSV through the suffix route, the ServiceStack way: a request whose type name carries the
 * suffix and whose response is text.
 */
class SoggettoRecapitoQueryCsv implements dtos.IReturn<string> {
  soggettoId?: number;
  fields?: string;
  constructor(init: Partial<SoggettoRecapitoQueryCsv>) { Object.assign(this, init); }
  getTypeName() { return 'SoggettoRecapitoQuery.csv'; }
  getMethod() { return 'GET'; }
  createResponse() { return ''; }
}

/** The ResponseStatus a failed call carries, as the client hands it over. */
async function failureOf(call: Promise<unknown>): Promise<{ errorCode?: string; errors?: Array<{ fieldName?: string; errorCode?: string }> }> {
  try {
    await call;
  } catch (e) {
    return (e as { responseStatus: { errorCode?: string } }).responseStatus;
  }
  throw new Error('the call should have failed');
}

forEachDialect('ServiceStack JsonServiceClient', (dialect) => {
  for (const rotation of ['reuse', 'rotate'] as const) {
    describe(`REFRESH_TOKEN_ROTATION=${rotation}`, () => {
      let s: TestServer;
      let now = Date.now();
      before(async () => {
        s = await startServer({ dialect, clock: () => new Date(now), env: { ADMIN_USERNAME: admin.userName, ADMIN_PASSWORD: admin.password, REFRESH_TOKEN_ROTATION: rotation } });
        await seedDemo(s.db);
      });
      after(() => s.close());

      it('serves the DTOs it was built with at /types/typescript', async () => {
        const served = await s.request('GET', '/types/typescript');
        expect(served.status).to.equal(200);
        expect(served.text).to.equal(fs.readFileSync(new URL('../../../generated/servicestack-dtos.ts', import.meta.url), 'utf8'));
        expect(served.text).to.match(/export class GetImpiantoFilesRequest implements IReturn<GetImpiantoFilesResponse>/);
      });

      for (const basePath of [null, 'api'] as const) {
        const routes = basePath === null ? '/json/reply/' : '/api/';
        const client = () => {
          const c = new JsonServiceClient(s.baseUrl);
          if (basePath === null) c.basePath = null;
          return c;
        };

        it(`${routes}: registers with autoLogin, signs in, queries (JSON and CSV), reads files, assigns and takes roles`, async () => {
          const user = `ss.${rotation}.${basePath ?? 'v5'}`;
          const c = client();
          const reg = await c.post(new dtos.Register({ userName: user, password, autoLogin: true }));
          expect(reg.userName).to.equal(user);
          expect(reg.bearerToken).to.be.a('string');

          const auth = await c.post(new dtos.Authenticate({ provider: 'credentials', userName: admin.userName, password: admin.password, rememberMe: true }));
          expect(auth.roles).to.include('Admin');
          c.bearerToken = auth.bearerToken!;
          c.refreshToken = auth.refreshToken!;

          const byGet = await c.get(new dtos.SoggettoRecapitoQuery({ soggettoIdIn: [1001, 1002], take: 3, orderBy: '-Id' }));
          expect(byGet.results?.map((r) => r.soggettoId)).to.have.length(3).and.satisfy((ids: number[]) => ids.every((id) => id === 1001 || id === 1002));
          // `next` is one more property of the response; `after` one more of the request.
          const whole = await c.get(new dtos.SoggettoRecapitoQuery({ soggettoIdIn: [1001, 1002], orderBy: '-Id' }));
          const following = await c.get(new dtos.SoggettoRecapitoQuery({ soggettoIdIn: [1001, 1002], take: 3, orderBy: '-Id', after: byGet.next }));
          expect(following.results?.map((r) => r.id)).to.deep.equal(whole.results?.slice(3, 6).map((r) => r.id));
          expect(whole.results).to.have.length.above(3);
          expect(whole.next).to.equal(undefined);
          const byPost = await c.post(new dtos.CaratteristicaGruppoQuery({ isDisattiva: false, take: 2, include: 'Total' }));
          expect(byPost.results).to.have.length(2);
          expect(byPost.next).to.be.a('string');
          expect(byPost.total).to.be.greaterThan(2);
          const csv = await c.get(new SoggettoRecapitoQueryCsv({ soggettoId: 1001, fields: 'Id,Recapito' }));
          expect(csv.split('\r\n')[0]).to.equal('Id,Recapito');
          expect(csv.split('\r\n').length).to.be.greaterThan(2);

          const files = await c.get(new dtos.GetImpiantoFilesRequest({ impiantoId: 1 }));
          expect(files.rootFile?.isFolder).to.equal(true);
          expect(files.contents?.length).to.be.greaterThan(0);

          const assigned = await c.post(new dtos.AssignRoles({ userName: user, roles: ['ApiUser'] }));
          expect([assigned.allRoles, assigned.allPermissions]).to.deep.equal([['ApiUser'], []]);
          const taken = await c.post(new dtos.UnAssignRoles({ userName: user, roles: ['ApiUser'] }));
          expect([taken.allRoles, taken.allPermissions]).to.deep.equal([[], []]);
        });

        it(`${routes}: field errors surface as the client's ResponseStatus`, async () => {
          const status = await failureOf(client().post(new dtos.Register({ userName: 'x', password: 'short' })));
          expect(status.errorCode).to.equal('InvalidUserName');
          expect(status.errors?.map((e) => e.fieldName)).to.include.members(['UserName', 'Password']);
        });

        it(`${routes}: recovers an expired access token by its automatic refresh${rotation === 'reuse' ? ', three times in a row' : ' once; the second refresh is 401 and revokes the session'}, then logs out`, async () => {
          const c = client();
          const auth = await c.post(new dtos.Authenticate({ userName: admin.userName, password: admin.password }));
          c.bearerToken = auth.bearerToken!;
          c.refreshToken = auth.refreshToken!;
          const refreshes = rotation === 'reuse' ? 3 : 1;
          for (let i = 0; i < refreshes; i++) {
            const expired = c.bearerToken;
            now += minutes(16);
            const page = await c.get(new dtos.SoggettoRecapitoQuery({ take: 1 }));
            expect(page.results).to.have.length(1);
            expect(c.bearerToken, 'the client took a new access token').not.to.equal(expired);
          }
          if (rotation === 'rotate') {
            now += minutes(16);
            const status = await failureOf(c.get(new dtos.SoggettoRecapitoQuery({ take: 1 })));
            expect(status.errorCode).to.equal('Unauthorized');
            const session = await s.knex('auth_session').where({ id: auth.sessionId }).first('revoked_at');
            expect(session.revoked_at, 'the reuse of a spent token revoked the session').not.to.equal(null);
            return;
          }
          expect(await c.post(new dtos.Authenticate({ provider: 'logout' }))).to.deep.equal({});
          const refresh = await s.request('POST', '/access-token', { json: { refreshToken: auth.refreshToken } });
          expect(refresh.status).to.equal(401);
        });
      }
    });
  }
});
