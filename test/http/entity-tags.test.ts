// Entity tags and conditional GET over HTTP (design.md §7, "Entity tags"): a tag on every
// query and files answer, one tag however the request was written, another for another
// format, fields or role; If-None-Match answering 304 with only the version read (the
// statements counted), for a list, `*` and W/ tags, on GET and HEAD, never on POST; two
// nodes on one MariaDB database give one tag.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import { connect, disconnect } from '../../src/db/connect.js';
import { watchReads, type ReadStatement } from '../../src/db/reads/select.js';
import { createModules } from '../../src/handlers/index.js';
import { loadContract } from '../../src/http/contract.js';
import { dialects, forEachDialect } from '../support/dialects.js';
import { expectError } from '../support/expect-error.js';
import { startServer, type TestServer } from '../support/server.js';

const path = '/json/reply/SoggettoRecapitoQuery';
const strong = /^"[A-Za-z0-9_-]{32}"$/;

forEachDialect('entity tags', (dialect) => {
  let s: TestServer;
  let admin: string;
  before(async () => {
    s = await startServer({ dialect });
    admin = await s.tokenFor(['Admin']);
    await s.knex('soggetto_recapito').insert([1, 2, 3, 4].map((id) => ({ id, soggetto_id: 10 + (id % 2), tipo_recapito_id: 1, recapito: `r${id}@pec.it`, codice_esterno: null })));
    await s.knex('impianto').insert({ id: 1, nome: 'Impianto 1' });
    await s.knex('impianto_file').insert({ id: 1, nome: 'Documenti', is_folder: true, folder_id: null, impianto_id: 1, data_creazione: new Date(0), data_aggiornamento: new Date(0) });
  });
  after(() => s.close());

  const get = (query: string, headers: Record<string, string> = {}, token = admin) => s.request('GET', `${path}?${query}`, { token, headers });

  /** The statements a request runs on the read path, and on Knex's (the writes'). */
  async function counted<T>(work: () => Promise<T>): Promise<{ value: T; reads: ReadStatement[]; knex: string[] }> {
    const reads: ReadStatement[] = [];
    const knex: string[] = [];
    const onQuery = (q: { sql: string }) => knex.push(q.sql);
    const stop = watchReads(s.db, (st) => reads.push(st));
    s.knex.on('query', onQuery);
    try {
      return { value: await work(), reads, knex };
    } finally {
      stop();
      s.knex.off('query', onQuery);
    }
  }

  it('tags every answer with a strong ETag and Cache-Control: private, no-cache', async () => {
    for (const r of [await get('soggettoIdIn=10'), await get('soggettoIdIn=10&format=csv'), await get('soggettoIdIn=10&callback=cb'), await s.request('POST', path, { token: admin, json: { soggettoIdIn: [10] } })]) {
      expect(r.status, r.text).to.equal(200);
      expect(r.headers.get('etag')).to.match(strong);
      expect(r.headers.get('cache-control')).to.equal('private, no-cache');
    }
  });

  it('gives one tag to one planned query, however it was written, by GET or POST', async () => {
    const tag = (await get('soggettoIdIn=10,11&orderBy=Recapito&take=2')).headers.get('etag');
    const same = [
      await get('Take=2&OrderBy=recapito&SoggettoIdIn=11,10'),
      await get('soggettoidin=11&soggettoidin=10&soggettoidin=11&orderby=Recapito&take=2'),
      await s.request('POST', path, { token: admin, json: { take: 2, soggettoIdIn: [11, 10], orderBy: 'Recapito' } }),
    ];
    for (const r of same) expect(r.headers.get('etag'), r.text).to.equal(tag);
  });

  it('gives another tag to another format, callback, fields, page or role', async () => {
    const other = await s.tokenFor(['Admin', 'ApiUser']);
    const tags = [
      await get('soggettoIdIn=10'),
      await get('soggettoIdIn=10&format=csv'),
      await get('soggettoIdIn=10', { accept: 'text/csv' }),
      await get('soggettoIdIn=10&callback=a'),
      await get('soggettoIdIn=10&callback=b'),
      await get('soggettoIdIn=10&fields=Id'),
      await get('soggettoIdIn=10&take=1'),
      await get('soggettoIdIn=10&include=Total'),
      await get('soggettoIdIn=10', {}, other),
    ].map((r) => r.headers.get('etag'));
    expect(tags[2], 'Accept: text/csv is the CSV answer').to.equal(tags[1]);
    tags.splice(2, 1);
    expect(new Set(tags).size).to.equal(tags.length);
  });

  it('answers a current tag with 304, no body, the tag and Cache-Control, reading only the version', async () => {
    const first = await get('soggettoIdIn=10');
    const tag = first.headers.get('etag')!;
    const { value: r, reads, knex } = await counted(() => get('soggettoIdIn=10', { 'if-none-match': tag }));
    expect(r.status).to.equal(304);
    expect(r.text).to.equal('');
    expect(r.headers.get('etag')).to.equal(tag);
    expect(r.headers.get('cache-control')).to.equal('private, no-cache');
    expect(reads.map((st) => st.sql), 'the version lookup alone').to.have.length(1);
    expect(reads[0]!.sql).to.match(/from [`"]table_versions[`"]/i);
    expect(knex).to.deep.equal([]);
    // The same request without the header reads the version and the rows in one statement.
    const full = await counted(() => get('soggettoIdIn=10'));
    expect(full.reads.map((st) => st.sql), 'one statement').to.have.length(1);
    expect(full.reads[0]!.sql).to.match(/from [`"]table_versions[`"]/i).and.match(/from [`"]soggetto_recapito[`"]/i);
    expect(full.value.headers.get('etag')).to.equal(tag);
  });

  it('reads the version first, then the rows, where the page has no row to carry it', async () => {
    const empty = await counted(() => get('soggettoIdIn=999999'));
    expect(empty.value.status).to.equal(200);
    expect(empty.value.body.results).to.deep.equal([]);
    const statements = empty.reads.map((st) => st.sql);
    expect(statements, 'the page, the version, the page again').to.have.length(3);
    expect(statements[1]).to.match(/from [`"]table_versions[`"]/i).and.not.match(/soggetto_recapito[`"] where/i);
    const tag = empty.value.headers.get('etag')!;
    expect((await get('soggettoIdIn=999999', { 'if-none-match': tag })).status).to.equal(304);
  });

  it('matches a tag in a list, a weak tag and *, and answers 200 with the rows to any other', async () => {
    const tag = (await get('soggettoIdIn=11')).headers.get('etag')!;
    const statuses = async (...values: string[]) => Promise.all(values.map(async (v) => (await get('soggettoIdIn=11', { 'if-none-match': v })).status));
    expect(await statuses(`"nope", ${tag}`, `W/${tag}`, `"a",W/${tag} , "b"`, '*', `garbage, ${tag}`)).to.deep.equal([304, 304, 304, 304, 304]);
    const miss = await get('soggettoIdIn=11', { 'if-none-match': `"nope", W/"other"` });
    expect(miss.status).to.equal(200);
    expect(miss.body.results.map((x: { id: number }) => x.id)).to.deep.equal([1, 3]);
    expect(miss.headers.get('etag')).to.equal(tag);
    expect(await statuses(tag.slice(0, -2) + '"', 'W/"x"')).to.deep.equal([200, 200]);
  });

  it('answers HEAD like GET: 304 for a current tag, else 200 with the tag and no body', async () => {
    const tag = (await get('soggettoIdIn=10&format=csv')).headers.get('etag')!;
    const head = await s.request('HEAD', `${path}?soggettoIdIn=10&format=csv`, { token: admin });
    expect([head.status, head.headers.get('etag'), head.text]).to.deep.equal([200, tag, '']);
    const unchanged = await s.request('HEAD', `${path}?soggettoIdIn=10&format=csv`, { token: admin, headers: { 'if-none-match': tag } });
    expect([unchanged.status, unchanged.headers.get('etag')]).to.deep.equal([304, tag]);
  });

  it('answers a POST 200 with its rows whatever If-None-Match says', async () => {
    const tag = (await get('soggettoIdIn=10')).headers.get('etag')!;
    const r = await s.request('POST', path, { token: admin, json: { soggettoIdIn: [10] }, headers: { 'if-none-match': tag } });
    expect([r.status, r.headers.get('etag'), r.body.results.length]).to.deep.equal([200, tag, 2]);
  });

  it('gives a new tag after a write, and the old one then answers 200', async () => {
    const tag = (await get('soggettoIdIn=10')).headers.get('etag')!;
    await s.knex('soggetto_recapito').where({ id: 4 }).update({ recapito: 'cambiato@pec.it' });
    const r = await get('soggettoIdIn=10', { 'if-none-match': tag });
    expect(r.status).to.equal(200);
    expect(r.headers.get('etag')).to.not.equal(tag);
    expect(r.body.results.map((x: { recapito: string }) => x.recapito)).to.include('cambiato@pec.it');
  });

  it('tags an answer holding an estimate weakly, and a weak tag still answers 304', async () => {
    const r = await get('include=EstimatedTotal');
    expect(r.headers.get('etag')).to.match(/^W\/"[A-Za-z0-9_-]{32}"$/);
    expect((await get('include=EstimatedTotal', { 'if-none-match': r.headers.get('etag')! })).status).to.equal(304);
  });

  it('checks access and input before the tag: 401, 403 and 400 whatever If-None-Match says', async () => {
    const apiUser = await s.tokenFor(['ApiUser']);
    await expectError(await s.request('GET', `${path}?soggettoIdIn=10`, { headers: { 'if-none-match': '*' } }), 401, 'Unauthorized');
    await expectError(await get('soggettoIdIn=10', { 'if-none-match': '*' }, apiUser), 403, 'Forbidden');
    await expectError(await get('orderBy=Nope', { 'if-none-match': '*' }), 400, 'InvalidValue', 'OrderBy');
    await expectError(await get('soggettoIdIn=10', { 'if-none-match': `"${'a'.repeat(4100)}"` }), 400, 'Length', 'If-None-Match');
  });

  describe('GetImpiantoFilesRequest', () => {
    const files = (id: number, token: string, headers: Record<string, string> = {}) => s.request('GET', `/impianti/${id}/files`, { token, headers });

    it('tags the answer by role and answers a current tag with 304; a write to the files gives a new tag', async () => {
      const user = await s.tokenFor(['ApiUser']);
      const first = await files(1, user);
      const tag = first.headers.get('etag')!;
      expect(tag).to.match(strong);
      expect(first.headers.get('cache-control')).to.equal('private, no-cache');
      expect((await files(1, admin)).headers.get('etag')).to.not.equal(tag);
      const { value: unchanged, reads } = await counted(() => files(1, user, { 'if-none-match': tag }));
      expect(unchanged.status).to.equal(304);
      expect(reads).to.have.length(1);
      await s.knex('impianto_file').insert({ id: 2, nome: 'Schemi', is_folder: true, folder_id: 1, impianto_id: 1, data_creazione: new Date(0), data_aggiornamento: new Date(0) });
      const changed = await files(1, user, { 'if-none-match': tag });
      expect(changed.status).to.equal(200);
      expect(changed.body.contents.map((f: { nome: string }) => f.nome)).to.deep.equal(['Schemi']);
    });

    it('answers * with 304 for an installation that exists and 404 for one that does not', async () => {
      const user = await s.tokenFor(['ApiUser']);
      expect((await files(1, user, { 'if-none-match': '*' })).status).to.equal(304);
      await expectError(await files(99, user, { 'if-none-match': '*' }), 404, 'NotFound');
    });
  });
});

// Two nodes on one MariaDB database: the second a whole app of its own (its own pools and
// handlers) beside the test server, with the same secret.
if (dialects.includes('mysql')) describe('entity tags on two nodes [mysql]', () => {
  let s: TestServer;
  let other: { baseUrl: string; close(): Promise<void> };
  let admin: string;
  before(async () => {
    s = await startServer({ dialect: 'mysql' });
    admin = await s.tokenFor(['Admin']);
    await s.knex('soggetto_recapito').insert({ id: 1, soggetto_id: 1, tipo_recapito_id: 1, recapito: 'uno@pec.it', codice_esterno: null });
    other = await startNode(s);
  });
  after(async () => {
    await other?.close();
    await s.close();
  });

  const get = (baseUrl: string, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}/json/reply/SoggettoRecapitoQuery?soggettoId=1`, { headers: { authorization: `Bearer ${admin}`, ...headers } });

  it('gives one tag on both, each answers 304 to the other\'s tag, and both move together after a write', async () => {
    const [a, b] = [await get(s.baseUrl), await get(other.baseUrl)];
    expect(a.headers.get('etag')).to.match(strong).and.to.equal(b.headers.get('etag'));
    expect((await get(other.baseUrl, { 'if-none-match': a.headers.get('etag')! })).status).to.equal(304);
    await s.knex('soggetto_recapito').where({ id: 1 }).update({ recapito: 'due@pec.it' });
    const [c, d] = [await get(other.baseUrl, { 'if-none-match': a.headers.get('etag')! }), await get(s.baseUrl)];
    expect(c.status).to.equal(200);
    expect(c.headers.get('etag')).to.not.equal(a.headers.get('etag'));
    expect(c.headers.get('etag')).to.equal(d.headers.get('etag'));
  });
});

/** Another node of `s`'s deployment: the same configuration and database, its own app and pools. */
async function startNode(s: TestServer): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const db = connect({ databaseUrl: s.databaseUrl! });
  const deps = { config: s.config, db, clock: () => new Date(), logger: pino({ level: 'silent' }) };
  const modules = createModules(deps);
  await modules.start();
  const app = await createApp(deps, await loadContract(), modules);
  const server: Server = await new Promise((resolve) => { const h = createServer(app).listen(0, '127.0.0.1', () => resolve(h)); });
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await modules.close();
      await disconnect(db);
    },
  };
}
