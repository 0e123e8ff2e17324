// Answers that hold different rows never share an entity tag (design.md §7, "Entity tags"),
// even at the same table versions: the pages of one query, by Skip and by the `next` cursor,
// and the files of two installations. A shared tag would answer 304 for rows the client lacks.
import { expect } from 'chai';
import { forEachDialect } from '../support/dialects.js';
import { startServer, type TestResponse, type TestServer } from '../support/server.js';

const path = '/json/reply/SoggettoRecapitoQuery';
const query = 'soggettoIdIn=10,11&orderBy=Recapito&take=2';

const idsOf = (r: TestResponse): number[] => r.body.results.map((x: { id: number }) => x.id);
const tagOf = (r: TestResponse): string => {
  expect(r.status, r.text).to.equal(200);
  return r.headers.get('etag')!;
};

forEachDialect('entity tags of different answers', (dialect) => {
  let s: TestServer;
  let admin: string;
  let user: string;
  before(async () => {
    s = await startServer({ dialect });
    admin = await s.tokenFor(['Admin']);
    user = await s.tokenFor(['ApiUser']);
    await s.knex('soggetto_recapito').insert([1, 2, 3, 4, 5, 6, 7].map((id) => ({ id, soggetto_id: 10 + (id % 2), tipo_recapito_id: 1, recapito: `r${id}@pec.it`, codice_esterno: null })));
    await s.knex('impianto').insert([{ id: 1, nome: 'Impianto 1' }, { id: 2, nome: 'Impianto 2' }]);
    // Two trees of the same shape and names: only the ids tell the answers apart.
    await s.knex('impianto_file').insert([
      { id: 1, nome: 'Documenti', is_folder: true, folder_id: null, impianto_id: 1, data_creazione: new Date(0), data_aggiornamento: new Date(0) },
      { id: 2, nome: 'Documenti', is_folder: true, folder_id: null, impianto_id: 2, data_creazione: new Date(0), data_aggiornamento: new Date(0) },
      { id: 3, nome: 'Schema.pdf', is_folder: false, folder_id: 1, impianto_id: 1, data_creazione: new Date(0), data_aggiornamento: new Date(0) },
      { id: 4, nome: 'Schema.pdf', is_folder: false, folder_id: 2, impianto_id: 2, data_creazione: new Date(0), data_aggiornamento: new Date(0) },
    ]);
  });
  after(() => s.close());

  const get = (q: string, headers: Record<string, string> = {}) => s.request('GET', `${path}?${q}`, { token: admin, headers });

  /** Pages 1 to 3 and their tags, reached by Skip or by following `next`. */
  async function pagesBy(walk: 'skip' | 'cursor'): Promise<{ ids: number[][]; tags: string[]; asked: string[] }> {
    const asked = [query];
    const pages = [await get(query)];
    for (let n = 1; n < 3; n++) {
      asked.push(walk === 'skip' ? `${query}&skip=${2 * n}` : `${query}&after=${encodeURIComponent(pages[n - 1]!.body.next)}`);
      pages.push(await get(asked[n]!));
    }
    return { ids: pages.map(idsOf), tags: pages.map(tagOf), asked };
  }

  for (const walk of ['skip', 'cursor'] as const) {
    it(`gives pages 1, 2 and 3 of one query three tags, paging by ${walk}`, async () => {
      const { ids, tags, asked } = await pagesBy(walk);
      expect(ids).to.deep.equal([[1, 2], [3, 4], [5, 6]]);
      expect(tags[1], 'page 2 against page 3').to.not.equal(tags[2]);
      expect(tags[0], 'page 1 against page 2').to.not.equal(tags[1]);
      expect(tags[0], 'page 1 against page 3').to.not.equal(tags[2]);
      // Same versions throughout: each page still answers 304 to its own tag...
      for (const [n, q] of asked.entries()) expect((await get(q, { 'if-none-match': tags[n]! })).status, `page ${n + 1}`).to.equal(304);
      // ...and page 2's tag, sent for page 3, gets page 3's rows.
      const third = await get(asked[2]!, { 'if-none-match': tags[1]! });
      expect([third.status, idsOf(third), third.headers.get('etag')]).to.deep.equal([200, [5, 6], tags[2]]);
    });
  }

  it('gives installations 1 and 2 different tags at the same versions of their tables', async () => {
    const files = (id: number, headers: Record<string, string> = {}) => s.request('GET', `/impianti/${id}/files`, { token: user, headers });
    const [one, two] = [await files(1), await files(2)];
    expect([one.body.rootFile.id, two.body.rootFile.id]).to.deep.equal([1, 2]);
    expect(tagOf(one)).to.not.equal(tagOf(two));
    // No write between them: each still answers 304 to its own tag.
    expect((await files(1, { 'if-none-match': tagOf(one) })).status).to.equal(304);
    expect((await files(2, { 'if-none-match': tagOf(two) })).status).to.equal(304);
    // Installation 1's tag, sent for installation 2, gets installation 2's files.
    const asked = await files(2, { 'if-none-match': tagOf(one) });
    expect([asked.status, asked.body.contents.map((f: { id: number }) => f.id)]).to.deep.equal([200, [4]]);
  });
});
