// Probes, routing and content negotiation: what every client meets before any operation's
// own rules (design.md §2, §3, §9).
import { check, expectError, expectStatus } from './expect.js';
import type { ContractCase } from './suite-types.js';

export const edgeCases: readonly ContractCase[] = [
  {
    name: 'Health: 200 {"status":"ok"} as JSON',
    operationId: 'Health',
    kind: 'positive',
    async run(ctx) {
      const r = await ctx.call('GET', '/health');
      expectStatus(r, 200);
      check(r.headers.get('content-type') === 'application/json; charset=utf-8', `Content-Type is ${r.headers.get('content-type')}`);
      check(r.body?.status === 'ok', `status is ${JSON.stringify(r.body?.status)}`);
    },
  },
  {
    name: 'Health: HEAD answers 200 without a body',
    operationId: 'Health',
    kind: 'positive',
    async run(ctx) {
      const r = await ctx.call('HEAD', '/health');
      expectStatus(r, 200);
      check(r.text === '', 'HEAD answered with a body');
    },
  },
  {
    name: 'Health: 200 JSONP with ?callback=',
    operationId: 'Health',
    kind: 'positive',
    async run(ctx) {
      const r = await ctx.call('GET', '/health?callback=contract.done');
      expectStatus(r, 200);
      check(r.text === '/**/contract.done({"status":"ok"});', `JSONP body is ${r.text.slice(0, 100)}`);
    },
  },
  {
    name: 'Health: 406 NotAcceptable for format=xml',
    operationId: 'Health',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('GET', '/health?format=xml'), 406, 'NotAcceptable'),
  },
  {
    name: 'Health: 406 NotAcceptable for Accept: application/xml',
    operationId: 'Health',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('GET', '/health', { headers: { accept: 'application/xml' } }), 406, 'NotAcceptable'),
  },
  {
    name: 'Health: 400 naming callback for a hostile callback name',
    operationId: 'Health',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('GET', '/health?callback=alert(1)'), 400, 'InvalidValue', 'callback'),
  },
  {
    name: 'Ready: 200 while the database answers',
    operationId: 'Ready',
    kind: 'positive',
    async run(ctx) {
      const r = await ctx.call('GET', '/ready');
      expectStatus(r, 200);
    },
  },
  {
    name: 'Ready: 404 for the .csv suffix (no CSV form, so no such route)',
    operationId: 'Ready',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('GET', '/ready.csv'), 404, 'NotFound'),
  },
  {
    name: '(routing): 404 NotFound for an unknown route',
    operationId: '(routing)',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('GET', '/contract-check/no-such-route'), 404, 'NotFound'),
  },
  {
    name: '(routing): 404 NotFound for an unknown operation under /json/reply/',
    operationId: '(routing)',
    kind: 'negative',
    run: async (ctx) => expectError(await ctx.call('POST', '/json/reply/NoSuchQuery', { json: {} }), 404, 'NotFound'),
  },
];
