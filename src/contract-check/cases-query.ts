// The two query operations, POST and GET (design.md §7). The same cases run on both: they
// only use `Id`, which every query record has, so they hold whatever data the deployment
// holds (an empty table included).
import { check, expectError, expectStatus, needAdmin, needUser, skip } from './expect.js';
import { queryDtoList } from '../../generated/query-catalog.js';
import type { ContractCase } from './suite-types.js';

const admin = { needsAdmin: true } as const;

/** An operation for Admins only (a query or its export): refused without a token and without the role. */
export function adminOnlyCases(name: string): ContractCase[] {
  const path = `/json/reply/${name}`;
  const get = `${name}Get`;
  return [
    {
      name: `${name}: 401 without a token`,
      operationId: name,
      kind: 'negative',
      run: async (ctx) => expectError(await ctx.call('POST', path, { json: {} }), 401, 'Unauthorized'),
    },
    {
      name: `${get}: 403 Invalid Role for a user without Admin`,
      operationId: get,
      kind: 'negative',
      async run(ctx) {
        const user = needUser(ctx.state);
        if (user.roles.includes('Admin')) skip('this deployment gives new users Admin (DEFAULT_ROLES)');
        expectError(await ctx.call('GET', path, { token: user.bearerToken }), 403, 'Forbidden');
      },
    },
  ];
}

/** Who may call a query and how: without a token, without the role, with another verb. */
function accessCases(name: string): ContractCase[] {
  const path = `/json/reply/${name}`;
  return [
    ...adminOnlyCases(name),
    {
      name: `${name}: 405 with Allow for PATCH`,
      operationId: name,
      kind: 'negative',
      run: async (ctx) => expectError(await ctx.call('PATCH', path, { json: {} }), 405, 'MethodNotAllowed'),
    },
  ];
}

/** What an Admin's query answers, in JSON and CSV. */
function answerCases(name: string): ContractCase[] {
  const path = `/json/reply/${name}`;
  const get = `${name}Get`;
  return [
    {
      name: `${name}: 200 filtered, ordered page with total and aggregates`,
      operationId: name,
      kind: 'positive',
      ...admin,
      async run(ctx) {
        const json = { idGreaterThanOrEqualTo: 1, orderByDesc: 'Id', skip: 1, take: 2, include: 'Total, COUNT(*) Rows, MAX(Id) MaxId' };
        const r = await ctx.call('POST', path, { json, token: needAdmin(ctx.state).bearerToken });
        expectStatus(r, 200);
        const ids: number[] = r.body.results.map((x: { id: number }) => x.id);
        check(r.body.offset === 1, `offset is ${r.body.offset}`);
        check(ids.length <= 2, `take 2 returned ${ids.length} rows`);
        check(ids.every((id, i) => i === 0 || id < ids[i - 1]!), `ids are not descending: ${ids.join(', ')}`);
        check(typeof r.body.total === 'number', 'include=Total gave no total');
        check(r.body.meta?.Rows === String(r.body.total), `COUNT(*) is ${r.body.meta?.Rows}, total is ${r.body.total}`);
      },
    },
    {
      name: `${get}: 200 with comma-separated idIn and fields=Id`,
      operationId: get,
      kind: 'positive',
      ...admin,
      async run(ctx) {
        const r = await ctx.call('GET', `${path}?idIn=1,2,3&fields=Id&take=5`, { token: needAdmin(ctx.state).bearerToken });
        expectStatus(r, 200);
        for (const row of r.body.results as Array<Record<string, unknown>>) {
          check(Object.keys(row).join() === 'id', `fields=Id returned ${JSON.stringify(row)}`);
          check([1, 2, 3].includes(row['id'] as number), `idIn=1,2,3 returned id ${String(row['id'])}`);
        }
      },
    },
    {
      name: `${get}: 304 for the ETag its 200 gave, 200 again for another tag`,
      operationId: get,
      kind: 'positive',
      ...admin,
      async run(ctx) {
        // A write to the table between the two requests makes the second a 200, rightly: this
        // case holds on a deployment whose query tables nobody writes to while it runs.
        const token = needAdmin(ctx.state).bearerToken;
        const first = await ctx.call('GET', `${path}?fields=Id&take=1`, { token });
        expectStatus(first, 200);
        const tag = first.headers.get('etag');
        check(tag !== null && first.headers.get('cache-control') === 'private, no-cache', `ETag ${tag}, Cache-Control ${first.headers.get('cache-control')}`);
        const unchanged = await ctx.call('GET', `${path}?take=1&fields=Id`, { token, headers: { 'if-none-match': `"other", ${tag}` } });
        expectStatus(unchanged, 304);
        check(unchanged.text === '' && unchanged.headers.get('etag') === tag, `304 with body ${JSON.stringify(unchanged.text.slice(0, 40))} and ETag ${unchanged.headers.get('etag')}`);
        expectStatus(await ctx.call('GET', `${path}?fields=Id&take=1`, { token, headers: { 'if-none-match': '"other"' } }), 200);
      },
    },
    {
      name: `${get}: 200 CSV attachment for the .csv suffix`,
      operationId: get,
      kind: 'positive',
      ...admin,
      async run(ctx) {
        const r = await ctx.call('GET', `${path}.csv?fields=Id&take=3`, { token: needAdmin(ctx.state).bearerToken });
        expectStatus(r, 200);
        check(r.headers.get('content-type') === 'text/csv; charset=utf-8', `Content-Type is ${r.headers.get('content-type')}`);
        check(r.headers.get('content-disposition') === `attachment; filename="${name}.csv"`, `Content-Disposition is ${r.headers.get('content-disposition')}`);
        check(/^Id\r\n(\d+\r\n){0,3}$/.test(r.text), `CSV is ${JSON.stringify(r.text.slice(0, 80))}`);
      },
    },
  ];
}

/** A JSONP answer, and the request errors a query names: the field, the format, the media type. */
function refusalCases(name: string): ContractCase[] {
  const path = `/json/reply/${name}`;
  const get = `${name}Get`;
  return [
    {
      name: `${name}: 200 JSONP with ?callback=`,
      operationId: name,
      kind: 'positive',
      ...admin,
      async run(ctx) {
        const r = await ctx.call('POST', `${path}?callback=cb`, { json: { take: 0 }, token: needAdmin(ctx.state).bearerToken });
        expectStatus(r, 200);
        check(r.text === '/**/cb({"offset":0,"results":[]});', `body is ${r.text.slice(0, 100)}`);
      },
    },
    {
      name: `${name}: 400 UnknownField naming a misspelt property`,
      operationId: name,
      kind: 'negative',
      ...admin,
      run: async (ctx) => expectError(await ctx.call('POST', path, { json: { idStartWith: 1 }, token: needAdmin(ctx.state).bearerToken }), 400, 'UnknownField', 'idStartWith'),
    },
    {
      name: `${get}: 400 InvalidType naming IdIn for a non-integer`,
      operationId: get,
      kind: 'negative',
      ...admin,
      run: async (ctx) => expectError(await ctx.call('GET', `${path}?idIn=1,x`, { token: needAdmin(ctx.state).bearerToken }), 400, 'InvalidType', 'IdIn'),
    },
    {
      name: `${name}: 400 naming OrderBy for an unknown field`,
      operationId: name,
      kind: 'negative',
      ...admin,
      run: async (ctx) => expectError(await ctx.call('POST', path, { json: { orderBy: 'NoSuchField' }, token: needAdmin(ctx.state).bearerToken }), 400, 'InvalidValue', 'OrderBy'),
    },
    {
      name: `${get}: 406 NotAcceptable for format=xml`,
      operationId: get,
      kind: 'negative',
      ...admin,
      run: async (ctx) => expectError(await ctx.call('GET', `${path}?format=xml`, { token: needAdmin(ctx.state).bearerToken }), 406, 'NotAcceptable'),
    },
    {
      name: `${name}: 415 UnsupportedMediaType for a text/plain body`,
      operationId: name,
      kind: 'negative',
      ...admin,
      async run(ctx) {
        const r = await ctx.call('POST', path, { body: 'take=1', headers: { 'content-type': 'text/plain' }, token: needAdmin(ctx.state).bearerToken });
        expectError(r, 415, 'UnsupportedMediaType');
      },
    },
  ];
}

// Every query DTO of the generated catalog gets the same cases: a new DTO is covered as soon as it exists.
export const queryCases: readonly ContractCase[] = queryDtoList.flatMap((dto) => [...accessCases(dto.operation), ...answerCases(dto.operation), ...refusalCases(dto.operation)]);
