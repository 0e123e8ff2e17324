// The live answers in the served contract (design.md §2, §7 "Live answers"): /openapi.json
// declares the text/event-stream 200, Last-Event-ID and the 429 past the cap on exactly the
// GETs the server streams, JSON first in each 200; the routes document on their streaming
// routes only (not on suffix routes or HEAD); and what the server sends, the stream's head
// and each answer event's data, is what the routes document declares.
import { expect } from 'chai';
import { createResponseValidator, type ResponseValidator } from '../../src/contract-check/response-validator.js';
import { seedDemo } from '../../src/cli/demo-data.js';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestServer } from '../support/server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const verbs = ['get', 'put', 'post', 'delete', 'patch', 'head'];
const events = 'text/event-stream';
const live = ['CaratteristicaGruppoQueryGet', 'GetImpiantoFilesRequest', 'SoggettoRecapitoQueryGet'];

const resolverOf = (document: Json) => {
  const resolve = (node: Json): Json => (node?.['$ref'] ? resolve((node['$ref'] as string).slice(2).split('/').reduce((at: Json, k) => at[k.replace(/~1/g, '/').replace(/~0/g, '~')], document)) : node);
  return resolve;
};

/** `[path, method, operation]` of every operation of a document. */
const operationsOf = (document: Json): Array<[string, string, Json]> =>
  Object.entries(document['paths'] as Record<string, Json>).flatMap(([path, item]) => verbs.filter((m) => item[m]).map((m): [string, string, Json] => [path, m, item[m]]));

const declaresEvents = (document: Json, op: Json) => {
  const resolve = resolverOf(document);
  return Object.values((op['responses'] ?? {}) as Json).some((r) => resolve(r)['content']?.[events] !== undefined);
};
const parameterNames = (document: Json, path: string, op: Json) => {
  const resolve = resolverOf(document);
  return [...(document['paths'][path]['parameters'] ?? []), ...(op['parameters'] ?? [])].map(resolve).map((p: Json) => `${p['in']}:${p['name']}`);
};

/** The first event of a stream, its head, and the stream closed. */
async function firstEvent(s: TestServer, target: string, headers: Record<string, string>) {
  const aborter = new AbortController();
  const res = await fetch(s.baseUrl + target, { headers: { accept: events, ...headers }, signal: aborter.signal });
  let text = '';
  if ((res.headers.get('content-type') ?? '').startsWith(events)) {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body!) {
        text += decoder.decode(chunk as Uint8Array, { stream: true });
        if (text.includes('\n\n')) break;
      }
    } finally {
      aborter.abort();
    }
  } else text = await res.text();
  const block = text.split('\n\n')[0]!.split('\n');
  const field = (name: string) => block.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
  return { res, text, id: field('id'), data: field('data'), event: field('event') };
}

forEachDialect('live answers in the contract', (dialect) => {
  let s: TestServer;
  let consumers: Json;
  let routes: Json;
  let admin: string;
  let validate: ResponseValidator;
  before(async () => {
    s = await startServer({ dialect, env: { LIVE_INTERVAL_MS: '50', LIVE_MAX_SUBSCRIPTIONS: '3' } });
    await seedDemo(s.db);
    consumers = (await s.request('GET', '/openapi.json')).body as Json;
    routes = (await s.request('GET', '/openapi-routes.json')).body as Json;
    admin = await s.tokenFor(['Admin']);
    validate = createResponseValidator(routes);
  });
  after(() => s.close());

  it('/openapi.json declares text/event-stream on exactly the GETs the server streams, with Last-Event-ID and the 429', () => {
    const streaming = operationsOf(consumers).filter(([, , op]) => declaresEvents(consumers, op)).map(([, , op]) => op['operationId'] as string).sort();
    expect(streaming).to.deep.equal(live);
    // The server's own list: the operations whose tables it watches (src/handlers/live-answers.ts).
    const served = operationsOf(consumers).map(([, , op]) => op['operationId'] as string).filter((id) => s.modules.live.tablesOf(id) !== undefined).sort();
    expect(served).to.deep.equal(live);
    const resolve = resolverOf(consumers);
    for (const [path, method, op] of operationsOf(consumers)) {
      const names = parameterNames(consumers, path, op);
      if (!live.includes(op['operationId'])) {
        expect(names, op['operationId']).not.to.include('header:Last-Event-ID');
        continue;
      }
      expect(method).to.equal('get');
      const ok = resolve(op['responses']['200']);
      // Tools that take the first media type (Portman, Swagger UI's Accept) keep asking for JSON.
      expect(Object.keys(ok['content'])[0], op['operationId']).to.equal('application/json');
      const stream = ok['content'][events];
      const schema = resolve(stream['schema']);
      expect(schema['type']).to.equal('string');
      for (const word of ['id: <entity tag>', 'data: <JSON>', 'event: expired', 'TokenExpired', 'event: unavailable', ': keep-alive', 'retry: 2000', 'Last-Event-ID']) expect(schema['description']).to.include(word);
      // The example event carries the JSON 200's example as its data.
      expect(stream['example']).to.match(/^id: "[A-Za-z0-9_-]{32}"\ndata: .+\n\n$/);
      expect(JSON.parse(/\ndata: (.+)\n/.exec(stream['example'])![1]!)).to.deep.equal(ok['content']['application/json']['example']);
      expect(names, op['operationId']).to.include('header:Last-Event-ID');
      const lastEventId = [...(op['parameters'] as Json[])].map(resolve).find((p) => p['name'] === 'Last-Event-ID')!;
      expect(lastEventId['required'] ?? false).to.equal(false);
      const refused = resolve(op['responses']['429']);
      for (const header of ['Retry-After', 'RateLimit-Policy', 'RateLimit']) expect(refused['headers'][header]?.['required'], `${op['operationId']} 429 ${header}`).to.equal(true);
      expect(op['description']).to.include('**Live answer.**');
    }
  });

  it('the routes document declares it on the streaming routes only: ServiceStack\'s predefined routes, not suffix routes or HEAD', () => {
    const streaming = operationsOf(routes).filter(([, , op]) => declaresEvents(routes, op)).map(([path, method]) => `${method.toUpperCase()} ${path}`).sort();
    expect(streaming).to.deep.equal([
      'GET /api/CaratteristicaGruppoQuery', 'GET /api/GetImpiantoFilesRequest', 'GET /api/SoggettoRecapitoQuery',
      'GET /impianti/{ImpiantoId}/files',
      'GET /json/reply/CaratteristicaGruppoQuery', 'GET /json/reply/GetImpiantoFilesRequest', 'GET /json/reply/SoggettoRecapitoQuery',
    ]);
    for (const [path, method, op] of operationsOf(routes)) {
      const streams = declaresEvents(routes, op);
      const names = parameterNames(routes, path, op);
      expect(names.includes('header:Last-Event-ID'), `${method} ${path}`).to.equal(streams);
      expect(op['responses']['429']?.['$ref'] === '#/components/responses/TooManyLiveAnswers', `${method} ${path}`).to.equal(streams);
      expect(op['x-live'] === true, `${method} ${path}`).to.equal(streams);
    }
  });

  it('streams on exactly the routes that declare it: each head and each answer\'s data as the routes document declares them', async () => {
    const plain = await s.request('GET', '/json/reply/SoggettoRecapitoQuery?take=2', { token: admin });
    let streamed = 0;
    for (const [path, method, op] of operationsOf(routes)) {
      if (method !== 'get' || op['x-edge'] === true) continue;
      const target = path.replace('{ImpiantoId}', '1').replace(/^\/(json\/reply|api)\/GetImpiantoFilesRequest$/, '$&?impiantoId=1');
      const got = await firstEvent(s, target, { authorization: `Bearer ${admin}` });
      const media = (got.res.headers.get('content-type') ?? '').split(';')[0];
      expect(media === events, `${target} answered ${got.res.status} ${media}`).to.equal(declaresEvents(routes, op));
      const head = validate({ method: 'GET', path: target, status: got.res.status, headers: got.res.headers, text: media === events ? '' : got.text });
      expect(head.violations, target).to.deep.equal([]);
      expect(head.checked, target).to.equal(true);
      if (media !== events) continue;
      streamed++;
      expect(got.res.status).to.equal(200);
      expect(got.res.headers.get('cache-control'), target).to.equal('private, no-cache');
      expect(got.event, target).to.equal(undefined);
      expect(got.id, target).to.match(/^"[A-Za-z0-9_-]{32}"$/);
      // The data is the plain GET's answer, checked as the JSON 200 of the same route.
      const data = validate({ method: 'GET', path: target, status: 200, headers: new Headers({ 'content-type': 'application/json; charset=utf-8' }), text: got.data! });
      expect(data.violations, target).to.deep.equal([]);
    }
    expect(streamed).to.equal(7);
    // The first event of the same request is the plain GET's answer, tag and all.
    const same = await firstEvent(s, '/json/reply/SoggettoRecapitoQuery?take=2', { authorization: `Bearer ${admin}` });
    expect([same.id, JSON.parse(same.data!)]).to.deep.equal([plain.headers.get('etag'), plain.body]);
  });

  it('answers the declared 429 past LIVE_MAX_SUBSCRIPTIONS, with Retry-After and the RateLimit fields', async () => {
    const open = [new AbortController(), new AbortController(), new AbortController()];
    try {
      for (const aborter of open) {
        const r = await fetch(`${s.baseUrl}/impianti/1/files`, { headers: { accept: events, authorization: `Bearer ${admin}` }, signal: aborter.signal });
        expect(r.status).to.equal(200);
      }
      const refused = await fetch(`${s.baseUrl}/impianti/1/files`, { headers: { accept: events, authorization: `Bearer ${admin}`, 'last-event-id': '"x"' } });
      const text = await refused.text();
      expect(refused.status, text).to.equal(429);
      const verdict = validate({ method: 'GET', path: '/impianti/1/files', status: 429, headers: refused.headers, text });
      expect(verdict.violations).to.deep.equal([]);
      expect(refused.headers.get('ratelimit-policy')).to.equal('"live";q=3;qu="concurrent-requests"');
    } finally {
      open.forEach((a) => a.abort());
    }
  });
});
