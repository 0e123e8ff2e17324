// Paging a large result over HTTP (design.md §7): `next` and `Link: rel="next"` on GET, JSON,
// CSV and JSONP answers, on the operation and predefined routes; every bad cursor a 400
// naming `After`; `Include=EstimatedTotal` exact below its limit, the engine's estimate or a
// lower bound above it.
import { expect } from 'chai';
import http from 'node:http';
import { forEachDialect } from '../support/dialects.js';
import { expectError } from '../support/expect-error.js';
import { startServer, type TestServer } from '../support/server.js';

const ROWS = 23;
const path = '/json/reply/SoggettoRecapitoQuery';

/** Contacts with ties on soggetto_id and a few NULL recapiti. */
async function seed(s: TestServer): Promise<void> {
  await s.knex('soggetto_recapito').insert(
    Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, soggetto_id: i % 4, tipo_recapito_id: 1 + (i % 2), recapito: i % 5 === 0 ? null : `r${String(i).padStart(2, '0')}`, codice_esterno: null })),
  );
}

const linkOf = (r: { headers: Headers }): string | undefined => /^<([^>]+)>; rel="next"$/.exec(r.headers.get('link') ?? '')?.[1];

forEachDialect('query paging', (dialect) => {
  let s: TestServer;
  let admin: string;
  before(async () => {
    s = await startServer({ dialect, env: { ESTIMATE_EXACT_UP_TO: '15' } });
    admin = await s.tokenFor(['Admin']);
    await seed(s);
  });
  after(() => s.close());
  const get = (query: string, headers: Record<string, string> = {}) => s.request('GET', `${path}?${query}`, { token: admin, headers });

  it('GET walks every row by following Link: rel="next", in order, once each', async () => {
    const ids: number[] = [];
    let url: string | undefined = `${s.baseUrl}${path}?orderByDesc=SoggettoId&take=5&fields=Id`;
    let pages = 0;
    while (url !== undefined) {
      expect(url.startsWith(`${s.baseUrl}${path}?`), url).to.equal(true);
      const r = await s.request('GET', url.slice(s.baseUrl.length), { token: admin });
      expect(r.status, r.text).to.equal(200);
      expect(pages, 'pages').to.be.below(5);
      ids.push(...r.body.results.map((x: { id: number }) => x.id));
      expect(r.body.offset).to.equal(0);
      url = linkOf(r);
      expect(r.body.next === undefined).to.equal(url === undefined);
      if (url) expect(new URL(url).searchParams.get('after')).to.equal(r.body.next);
      pages++;
    }
    expect(pages).to.equal(5);
    const whole = await get(`orderByDesc=SoggettoId&take=100&fields=Id`);
    expect(ids).to.deep.equal(whole.body.results.map((x: { id: number }) => x.id));
    // Id closes the order in the direction of its last term.
    expect(ids.slice(0, 6)).to.deep.equal([20, 16, 12, 8, 4, 23]);
  });

  it('an answer reached by skip carries next, and the last page carries neither next nor Link', async () => {
    const mid = await get('skip=10&take=5');
    expect(mid.body.next).to.be.a('string');
    const after = await get(`take=5&after=${encodeURIComponent(mid.body.next)}`);
    expect(after.body.results.map((x: { id: number }) => x.id)).to.deep.equal([16, 17, 18, 19, 20]);
    const last = await get('skip=20&take=5');
    expect(last.body.results).to.have.length(3);
    expect(last.body).not.to.have.property('next');
    expect(last.headers.get('link')).to.equal(null);
    // A page that ends exactly at the last row has no further page either.
    expect((await get('skip=18&take=5')).body).not.to.have.property('next');
  });

  it('the Link drops skip, keeps the other parameters, and follows the suffix and predefined routes', async () => {
    for (const route of ['/json/reply/SoggettoRecapitoQuery.json', '/api/SoggettoRecapitoQuery']) {
      const r = await s.request('GET', `${route}?Skip=3&take=4&tipoRecapitoId=1&Fields=Id,Recapito`, { token: admin });
      const link = new URL(linkOf(r)!);
      expect(link.pathname).to.equal(route);
      expect([...link.searchParams.keys()].sort()).to.deep.equal(['Fields', 'after', 'take', 'tipoRecapitoId']);
      const next = await s.request('GET', link.pathname + link.search, { token: admin });
      expect(next.status, next.text).to.equal(200);
      // Type 1 holds the odd ids; Skip=3&take=4 answered 7-13, the Link the four after them.
      expect(next.body.results).to.deep.equal([{ id: 15, recapito: 'r14' }, { id: 17, recapito: 'r16' }, { id: 19, recapito: 'r18' }, { id: 21 }]);
    }
  });

  it('the Link names the scheme and host the client used, behind a trusted proxy the forwarded ones', async () => {
    // fetch sets Host itself, so this request goes out through node:http.
    const direct = await new Promise<string>((resolve, reject) => {
      const req = http.get(`${s.baseUrl}${path}?take=2`, { headers: { host: 'api.example.test:8443', authorization: `Bearer ${admin}` } }, (res) => {
        res.resume();
        resolve(String(res.headers['link']));
      });
      req.on('error', reject);
    });
    expect(direct.startsWith('<http://api.example.test:8443/json/reply/SoggettoRecapitoQuery?'), direct).to.equal(true);
    // X-Forwarded-* from a peer that is not a trusted proxy count for nothing.
    const spoofed = await get('take=2', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example.test' });
    expect(linkOf(spoofed)!.startsWith(`${s.baseUrl}/`)).to.equal(true);
    const proxied = await startServer({ dialect, env: { TRUST_PROXY: 'loopback' } });
    try {
      await seed(proxied);
      const token = await proxied.tokenFor(['Admin']);
      const r = await proxied.request('GET', `${path}?take=2`, { token, headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'public.example.test' } });
      expect(linkOf(r)!.startsWith('https://public.example.test/json/reply/SoggettoRecapitoQuery?')).to.equal(true);
    } finally {
      await proxied.close();
    }
  });

  it('CSV answers carry the Link, JSONP bodies carry next, POST answers carry next without a Link', async () => {
    const csv = await get('format=csv&take=4');
    expect(csv.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    const fromCsv = new URL(linkOf(csv)!);
    expect(fromCsv.searchParams.get('format')).to.equal('csv');
    const second = await s.request('GET', fromCsv.pathname + fromCsv.search, { token: admin });
    expect(second.text.split('\r\n')[1]!.split(',')[0]).to.equal('5');

    const jsonp = await get('callback=cb&take=4');
    const body = JSON.parse(/^\/\*\*\/cb\((.*)\);$/s.exec(jsonp.text)![1]!);
    expect(body.next).to.be.a('string');

    const posted = await s.request('POST', path, { token: admin, json: { take: 4, orderBy: 'Recapito' } });
    expect(posted.body.next).to.be.a('string');
    expect(posted.headers.get('link')).to.equal(null);
    const more = await s.request('POST', path, { token: admin, json: { take: 4, orderBy: 'Recapito', after: posted.body.next } });
    expect(more.status, more.text).to.equal(200);
    // NULLs first: ids 1, 6, 11, 16 on the first page, then 21 and the first three values.
    const ids = (r: { body: { results: Array<{ id: number }> } }) => r.body.results.map((x) => x.id);
    expect([ids(posted), ids(more)]).to.deep.equal([[1, 6, 11, 16], [21, 2, 3, 4]]);
    expect(ids(more)).to.deep.equal(ids(await get('orderBy=Recapito&skip=4&take=4')));
  });

  it('Include=Total stays the total of the whole filter on a page after a cursor', async () => {
    const first = await get('take=3&include=Total&tipoRecapitoId=2');
    const next = await get(`take=3&include=Total&tipoRecapitoId=2&after=${encodeURIComponent(first.body.next)}`);
    expect([first.body.total, next.body.total]).to.deep.equal([11, 11]);
  });

  describe('a bad cursor is a 400 naming After, never another query\'s rows', () => {
    let cursor: string;
    before(async () => {
      cursor = (await get('take=3&tipoRecapitoId=1&orderBy=Recapito')).body.next;
    });
    const bad = async (query: string) => expectError(await get(query), 400, 'InvalidValue', 'After');

    it('together with skip', () => bad(`take=3&tipoRecapitoId=1&orderBy=Recapito&skip=1&after=${encodeURIComponent(cursor)}`));
    it('altered in its payload or its tag', async () => {
      const [payload, tag] = cursor.split('.') as [string, string];
      const values = JSON.parse(Buffer.from(payload, 'base64url').toString());
      values[values.length - 1] = 1;
      await bad(`take=3&tipoRecapitoId=1&orderBy=Recapito&after=${Buffer.from(JSON.stringify(values)).toString('base64url')}.${tag}`);
      await bad(`take=3&tipoRecapitoId=1&orderBy=Recapito&after=${payload}.${tag.slice(0, -2)}AA`);
      await bad('take=3&tipoRecapitoId=1&orderBy=Recapito&after=not-a-cursor');
    });
    it('from another query: other filters or another order', async () => {
      await bad(`take=3&tipoRecapitoId=2&orderBy=Recapito&after=${encodeURIComponent(cursor)}`);
      await bad(`take=3&orderBy=Recapito&after=${encodeURIComponent(cursor)}`);
      await bad(`take=3&tipoRecapitoId=1&orderByDesc=Recapito&after=${encodeURIComponent(cursor)}`);
      expectError(await s.request('GET', `/json/reply/CaratteristicaGruppoQuery?after=${encodeURIComponent(cursor)}`, { token: admin }), 400, 'InvalidValue', 'After');
    });
    it('signed with another secret', async () => {
      const other = await startServer({ dialect, env: { CURSOR_SECRET: 'another secret, also at least 32 bytes long' } });
      try {
        const token = await other.tokenFor(['Admin']);
        expectError(await other.request('GET', `${path}?take=3&tipoRecapitoId=1&orderBy=Recapito&after=${encodeURIComponent(cursor)}`, { token }), 400, 'InvalidValue', 'After');
      } finally {
        await other.close();
      }
    });
    it('a JSON body with a cursor that is not a string', async () => {
      expectError(await s.request('POST', path, { token: admin, json: { after: 5 } }), 400, 'InvalidType', 'After');
    });
  });

  it('a cursor works on another node with the same secret, and an empty After is the first page', async () => {
    const other = await startServer({ dialect });
    try {
      await seed(other);
      const token = await other.tokenFor(['Admin']);
      const cursor = (await get('take=3&orderByDesc=Recapito')).body.next;
      const there = await other.request('GET', `${path}?take=3&orderByDesc=Recapito&after=${encodeURIComponent(cursor)}`, { token });
      const here = await get(`take=3&orderByDesc=Recapito&after=${encodeURIComponent(cursor)}`);
      expect(there.status, there.text).to.equal(200);
      expect(there.body.results).to.deep.equal(here.body.results);
      expect((await get('take=3&after=')).body.results.map((x: { id: number }) => x.id)).to.deep.equal([1, 2, 3]);
    } finally {
      await other.close();
    }
  });

  describe('Include=EstimatedTotal', () => {
    it('is exact when the filter matches at most ESTIMATE_EXACT_UP_TO rows', async () => {
      for (const [query, n] of [['tipoRecapitoId=1', 12], ['soggettoId=2', 6], ['recapitoStartsWith=zz', 0]] as const) {
        const r = await get(`include=EstimatedTotal&take=1&${query}`);
        expect([r.body.estimatedTotal, r.body.estimatedTotalKind], query).to.deep.equal([n, 'exact']);
        expect(r.body).not.to.have.property('total');
      }
    });

    it('above the limit, is the engine\'s estimate or else a lower bound, never below the rows counted', async () => {
      await s.knex.raw(dialect === 'mysql' ? 'ANALYZE TABLE soggetto_recapito' : 'ANALYZE');
      const whole = await get('include=EstimatedTotal,Total&take=0');
      expect(whole.body.total).to.equal(ROWS);
      expect(whole.body.estimatedTotalKind).to.equal('estimate');
      expect(whole.body.estimatedTotal).to.be.within(16, ROWS * 2);
      const byPattern = await get('include=EstimatedTotal&take=0&recapitoContains=r');
      expect(byPattern.body.estimatedTotalKind).to.be.oneOf(dialect === 'mysql' ? ['estimate'] : ['atLeast']);
      expect(byPattern.body.estimatedTotal).to.be.at.least(16);
    });
  });
});
