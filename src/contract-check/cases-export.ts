// The exports of the two queries, POST and GET (design.md §7, Exports). Like the query
// cases they use only `Id`, and read at most the ids 1 to 3, so they hold whatever data the
// deployment holds.
import { check, expectError, expectStatus, needAdmin } from './expect.js';
import { queryDtoList } from '../../generated/query-catalog.js';
import { adminOnlyCases } from './cases-query.js';
import type { ContractCase } from './suite-types.js';

const admin = { needsAdmin: true } as const;

function exportCases(query: string): ContractCase[] {
  const name = `${query}Export`;
  const path = `/json/reply/${name}`;
  const get = `${name}Get`;
  return [
    {
      name: `${name}: 200 JSON Lines ending with the complete line`,
      operationId: name,
      kind: 'positive',
      ...admin,
      async run(ctx) {
        const r = await ctx.call('POST', path, { json: { idIn: [1, 2, 3], fields: 'Id' }, token: needAdmin(ctx.state).bearerToken });
        expectStatus(r, 200);
        check(r.headers.get('content-type') === 'application/x-ndjson', `Content-Type is ${r.headers.get('content-type')}`);
        const lines = r.text.split('\n').slice(0, -1).map((l) => JSON.parse(l) as Record<string, unknown>);
        const records = lines.slice(0, -1);
        check(JSON.stringify(lines.at(-1)) === JSON.stringify({ complete: true, rows: records.length }), `last line is ${JSON.stringify(lines.at(-1))}`);
        check(records.every((row) => [1, 2, 3].includes(row['id'] as number) && Object.keys(row).join() === 'id'), `records are ${JSON.stringify(records)}`);
      },
    },
    {
      name: `${get}: 200 CSV for the .csv suffix`,
      operationId: get,
      kind: 'positive',
      ...admin,
      async run(ctx) {
        const r = await ctx.call('GET', `/json/reply/${name}.csv?idIn=1,2,3&fields=Id`, { token: needAdmin(ctx.state).bearerToken });
        expectStatus(r, 200);
        check(r.headers.get('content-disposition') === `attachment; filename="${query}.csv"`, `Content-Disposition is ${r.headers.get('content-disposition')}`);
        check(/^Id\r\n([123]\r\n){0,3}$/.test(r.text), `CSV is ${JSON.stringify(r.text.slice(0, 80))}`);
      },
    },
    ...adminOnlyCases(name),
    {
      name: `${get}: 400 UnknownField for take, which an export has not`,
      operationId: get,
      kind: 'negative',
      ...admin,
      run: async (ctx) => expectError(await ctx.call('GET', `${path}?take=10`, { token: needAdmin(ctx.state).bearerToken }), 400, 'UnknownField', 'take'),
    },
    {
      name: `${name}: 406 NotAcceptable for format=json`,
      operationId: name,
      kind: 'negative',
      ...admin,
      run: async (ctx) => expectError(await ctx.call('POST', `${path}?format=json`, { json: {}, token: needAdmin(ctx.state).bearerToken }), 406, 'NotAcceptable'),
    },
  ];
}

export const queryExportCases: readonly ContractCase[] = queryDtoList.flatMap((dto) => exportCases(dto.operation));
